//go:build !linux

package llama

// prefault does nothing here: pages fault in as they are written.
func prefault[T kvElem](b []T) {}
