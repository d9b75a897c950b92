//go:build !unix

package main

import "os"

func terminate(*os.Process) bool { return false }
