// Package wordpool keeps the nouns people used lately — the latest 200 by
// default — so scheduled tips and small talk can pick a topic the community
// actually talks about. Nouns are found with kagome and the shrunk IPA
// dictionary (parts of speech only), loaded once and shared by every pool
// in the process; its tables are mapped from a file under DATA_DIR, built
// there at the first start (tables.go).
package wordpool
