package llama

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestMapRowMapsTheChunkAhead: in a cache no one has touched, the first
// row's mapRow maps its whole chunk and nothing past it, and the first
// row to reach into the next chunk maps that one (mincore reports which
// pages are in memory), for an F32 cache and an F16 one.
func TestMapRowMapsTheChunkAhead(t *testing.T) {
	t.Run("f32", testMapRow[float32])
	t.Run("f16", testMapRow[uint16])
}

func testMapRow[T kvElem](t *testing.T) {
	const rowFloats = 288 // 15m's rows
	page := os.Getpagesize()
	chunkPages := mapChunk / page
	size := mapChunk * 3
	chunk := mapChunk / sizeOf[T]() // values
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skipf("no anonymous mapping here: %v", err)
	}
	defer unix.Munmap(mem)
	resident := func() []bool {
		vec := make([]byte, size/page)
		_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(size), uintptr(unsafe.Pointer(&vec[0])))
		if errno != 0 {
			t.Skipf("no mincore here: %v", errno)
		}
		in := make([]bool, len(vec))
		for i, v := range vec {
			in[i] = v&1 != 0
		}
		return in
	}
	// A kernel that maps anonymous memory in folios larger than a page
	// maps pages no one asked for: then only the pages asked for are
	// checked. The probe writes the last page, far from the rows.
	mem[size-1] = 1
	exact := !resident()[size/page-2]
	if !exact {
		t.Log("this kernel maps pages in larger folios: pages past a chunk are not checked")
	}
	buf := unsafe.Slice((*T)(unsafe.Pointer(&mem[0])), size/sizeOf[T]())[:0]
	mapRow(buf[:rowFloats], 0, rowFloats)
	in := resident()
	for p := range chunkPages {
		if !in[p] {
			t.Fatalf("after the first row's mapRow, page %d of its chunk is not in memory", p)
		}
	}
	if exact && in[chunkPages] {
		t.Fatal("the first row's mapRow mapped a page of the next chunk")
	}
	// rows up to the one that reaches into the second chunk
	for at := rowFloats; ; at += rowFloats {
		mapRow(buf[:at+rowFloats], at, rowFloats)
		if (at+rowFloats-1)/chunk == 1 {
			break
		}
		if in := resident(); exact && in[chunkPages] {
			t.Fatalf("the row at %d, inside the first chunk, mapped the second", at)
		}
	}
	in = resident()
	if !in[chunkPages] || !in[2*chunkPages-1] || exact && in[2*chunkPages] {
		t.Errorf("the row reaching into the second chunk left it unmapped or mapped past it: pages %d, %d, %d in memory: %v, %v, %v",
			chunkPages, 2*chunkPages-1, 2*chunkPages, in[chunkPages], in[2*chunkPages-1], in[2*chunkPages])
	}
}
