/* lvuri.h - the one check of a libvirt connection URI given by a user
 * (--connect, a nightly matrix's connect=): only what this project supports
 * and nothing that makes libvirt run a program or talk to another socket. */
#ifndef HB_LVURI_H
#define HB_LVURI_H

#include <stdbool.h>
#include <stddef.h>

#define HB_LVURI_MAX 256

/* 0 when uri is qemu[+unix|+ssh|+libssh|+libssh2|+tcp|+tls]://[user@]host[:port]/system
 * or /session (no host for local transports, a host for remote ones), with only the query
 * parameters keyfile, known_hosts, sshauth, no_verify, no_tty, mode and
 * pkipath; else -1 with one line in err saying what is refused and what to
 * use. Refused: the ext transport and command= (they run a local program),
 * netcat= and proxy= (a program on the far side), socket= (another
 * daemon's socket), a user or host starting with '-' (an ssh option),
 * '%' escapes (they would hide the rest), blanks, quotes and control bytes. */
int hb_lvuri_check(const char *uri, char *err, size_t errlen);
/* A URI of the form hb_lvuri_check accepts names this machine's daemon: no
 * host (qemu:///system, qemu+unix:///session). A remote transport to
 * localhost is not counted as local. */
bool hb_lvuri_is_local(const char *uri);

#endif
