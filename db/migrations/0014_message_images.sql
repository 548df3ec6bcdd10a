-- What is kept of the images a user sent with a message: name, size and
-- dimensions, and whether the model saw them (a JSON array; never the
-- bytes). NULL: the message had none.
ALTER TABLE messages ADD COLUMN images jsonb;
