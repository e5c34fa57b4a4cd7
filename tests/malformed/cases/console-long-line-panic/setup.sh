# The panic text after 3000 bytes of a line that never ended (no newline).
cp ../_fake-guest/stream.good stream.in
{ printf '[    0.000000] Linux version 6.1.0-test\n'; head -c 3000 /dev/zero | tr '\0' x; printf 'Kernel panic - not syncing: Fatal exception\n'; } >console.in
