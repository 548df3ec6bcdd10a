-- The knowledge entries whose file lies directly in web_search/, written
-- before spaces had folders of their own (UnfiledKnowledge): each process
-- looks for them at its first knowledge-base sync. Without this index the
-- look read every entry, 18–28 ms at ten million messages; the index holds
-- only such entries, none once they are moved.
CREATE INDEX knowledge_entries_unfiled_idx ON knowledge_entries (id)
    WHERE file_path LIKE 'web\_search/%' AND file_path NOT LIKE 'web\_search/%/%';
