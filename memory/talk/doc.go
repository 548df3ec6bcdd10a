// Package talk keeps what members recently said in each channel, in memory
// only: the gateway's messages go in, edits and deletions follow them, and a
// turn reads the talk since yorozu last answered there without a query. It
// knows no platform: an adapter translates its events into Add, Edit,
// Delete and Answered.
package talk
