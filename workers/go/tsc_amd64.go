// The time-stamp counter on x86-64, read by tsc_amd64.s (Go has no intrinsic for RDTSC).

package main

// rdtsc returns the time-stamp counter: reference cycles at a constant rate.
func rdtsc() uint64
