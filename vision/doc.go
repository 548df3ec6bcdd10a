// Package vision makes the pictures users send fit for a vision model:
// PNG, JPEG, WebP and the first frame of a GIF are checked, decoded, scaled
// so that the longest side is at most MaxSide pixels and re-encoded as JPEG.
//
// A file's header is read before anything is decoded, so an image that
// claims more than MaxPixels (a decompression bomb) is refused at the cost
// of a few bytes. Files are at most MaxBytes; Read enforces that while
// reading. Both adapters (Discord and the admin page) go through here via
// the chat handler, so an image is treated the same whichever way it came.
package vision
