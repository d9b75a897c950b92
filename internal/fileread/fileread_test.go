package fileread

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtMost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit   int64
		want    string
		wantErr string
	}{
		{limit: 10, want: "0123456789"},
		{limit: 11, want: "0123456789"},
		{limit: 9, wantErr: "larger than 9 bytes"},
		{limit: 0, wantErr: "larger than 0 bytes"},
	} {
		got, err := AtMost(path, tc.limit)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("limit %d: error %v, want %q", tc.limit, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || string(got) != tc.want):
			t.Errorf("limit %d: %q, %v; want %q", tc.limit, got, err, tc.want)
		}
	}
	if _, err := AtMost(filepath.Join(t.TempDir(), "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestEndlessDeviceStops: a file that never ends is cut at the bound.
func TestEndlessDeviceStops(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	_, err := AtMost("/dev/zero", 2<<20)
	if err == nil || !strings.Contains(err.Error(), "larger than 2 MiB") {
		t.Fatalf("got %v", err)
	}
}
