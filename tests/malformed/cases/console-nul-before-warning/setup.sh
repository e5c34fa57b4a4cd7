# A NUL byte on the console before a WARNING.
cp ../_fake-guest/stream.good stream.in
printf '[    0.000000] Linux version 6.1.0-test\n\0\n[    5.100001] WARNING: CPU: 0 PID: 1 at mm/shmem.c:123 shmem_fault+0x1/0x2\n' >console.in
