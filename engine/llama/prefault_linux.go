package llama

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault has the kernel map b's whole pages now, in one call, where
// the first write to each would otherwise trap on its own.
func prefault[T kvElem](b []T) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	p := unsafe.Pointer(unsafe.SliceData(b))
	start := uintptr(p)
	end := start + uintptr(sizeOf[T]()*len(b))
	first, last := (start+page-1)&^(page-1), end&^(page-1)
	if first >= last {
		return
	}
	// an old kernel's EINVAL leaves the pages to fault in as before
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, first-start)), last-first), unix.MADV_POPULATE_WRITE)
}
