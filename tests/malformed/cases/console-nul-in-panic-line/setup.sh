# NUL bytes in the panic line itself, before the panic text.
cp ../_fake-guest/stream.good stream.in
printf '[    0.000000] Linux version 6.1.0-test\n\0\0\0[    5.000000] Kernel panic - not syncing: Fatal exception\n' >console.in
