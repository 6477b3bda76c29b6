package main

import "syscall"

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (5.14): fault the range
// in writable, as writing to every page would, in one call.
const madvPopulateWrite = 23

const canPopulate = true

// populateWrite faults b in. An error (EINVAL from a kernel without
// MADV_POPULATE_WRITE, ENOMEM) is ignored: the pages then fault in as they
// are used, as without it.
func populateWrite(b []byte) { _ = syscall.Madvise(b, madvPopulateWrite) }

// physicalMemory is the machine's memory in bytes, 0 when unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
