package main

import "syscall"

// fsName is " (the file system's type)" for the types this benchmark
// meets, or "".
func fsName(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return ""
	}
	switch uint32(st.Type) { // Linux's magic numbers (statfs(2))
	case 0x01021994:
		return " (tmpfs)"
	case 0xef53:
		return " (ext2/3/4)"
	case 0x58465342:
		return " (xfs)"
	case 0x9123683e:
		return " (btrfs)"
	case 0x794c7630:
		return " (overlayfs)"
	}
	return ""
}
