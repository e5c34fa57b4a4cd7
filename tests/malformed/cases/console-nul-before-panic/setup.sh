# A NUL byte on the console before the panic line.
cp ../_fake-guest/stream.good stream.in
printf '[    0.000000] Linux version 6.1.0-test\n[    1.000000] serial\0garbage\n[    5.000000] Kernel panic - not syncing: Fatal exception\n' >console.in
