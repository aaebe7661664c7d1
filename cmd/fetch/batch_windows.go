//go:build windows

package main

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive tells whether process pid still runs, so that a killed
// batch's temporary files are removed and a running one's left alone. A
// process that cannot be opened for another reason than its absence
// (access denied) is taken as running.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // no such process
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return true
	}
	const stillActive = 259 // STILL_ACTIVE
	return code == stillActive
}

// outOfSpace reports a failure for want of room: the disk is full. No
// read fails so: it is the output's, which every document after it would
// meet.
func outOfSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}

// overQuota: a quota on Windows fails as a full disk does, and its free
// space (GetDiskFreeSpaceEx, diskFree) is the caller's, quota counted.
func overQuota(err error) bool { return false }

// diskFree is the room left to this user on the volume of dir.
func diskFree(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var free uint64
	err = windows.GetDiskFreeSpaceEx(p, &free, nil, nil)
	return free, err
}
