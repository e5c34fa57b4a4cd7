/* lvuri.c - checks a user's libvirt connection URI (lvuri.h). */
#define _GNU_SOURCE
#include "lvuri.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define USE "use qemu:///system, qemu:///session or qemu+ssh://[user@]host[:port]/system"

static int refuse(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s; " USE, what);
	return -1;
}

static bool one_of(const char *s, size_t n, const char *const *set)
{
	for (; *set; set++)
		if (strlen(*set) == n && !strncmp(s, *set, n))
			return true;
	return false;
}

/* letters, digits and the bytes of set; a first byte that is a letter or digit */
static bool plain(const char *s, size_t n, const char *set)
{
	if (!n || !isalnum((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(set, s[i]))
			return false;
	return true;
}

/* an IPv6 address between brackets: hex digits, ':' and '.' (an IPv4
 * tail), at least two colons; "::1" starts with one, which plain() refused */
static bool ipv6_ok(const char *s, size_t n)
{
	size_t colons = 0;

	if (n < 2 || n > 45)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ':')
			colons++;
		else if (!isxdigit((unsigned char)s[i]) && s[i] != '.')
			return false;
	}
	return colons >= 2;
}

int hb_lvuri_check(const char *uri, char *err, size_t errlen)
{
	static const char *const local[] = { "", "unix", NULL };
	static const char *const remote[] = { "ssh", "libssh", "libssh2", "tcp", "tls", NULL };
	static const char *const paths[] = { "/system", "/session", NULL };
	static const char *const params[] = { "keyfile", "known_hosts", "sshauth", "no_verify",
					      "no_tty", "mode", "pkipath", NULL };
	const char *sep, *plus, *auth, *path, *query, *at, *colon, *p;
	size_t tlen;
	bool is_local;

	if (!uri || !*uri)
		return refuse(err, errlen, "empty URI");
	if (strlen(uri) >= HB_LVURI_MAX)
		return refuse(err, errlen, "URI too long");
	for (p = uri; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || strchr("'\"\\`%#;$<>|", *p))
			return refuse(err, errlen, "a blank, quote, control byte or one of %#;$<>|` in the URI");
	if (!(sep = strstr(uri, "://")))
		return refuse(err, errlen, "not a URI (no ://)");
	plus = memchr(uri, '+', (size_t)(sep - uri));
	if ((size_t)((plus ? plus : sep) - uri) != 4 || strncmp(uri, "qemu", 4))
		return refuse(err, errlen, "only the qemu driver is supported");
	tlen = plus ? (size_t)(sep - plus - 1) : 0;
	if (plus && tlen == 3 && !strncmp(plus + 1, "ext", 3))
		return refuse(err, errlen, "the ext transport runs a local program");
	is_local = one_of(plus ? plus + 1 : "", tlen, local);
	if (!is_local && !one_of(plus + 1, tlen, remote))
		return refuse(err, errlen, "unknown transport (supported: unix, ssh, libssh, libssh2, tcp, tls)");
	auth = sep + 3;
	path = strchr(auth, '/');
	if (!path)
		return refuse(err, errlen, "no /system or /session path");
	query = strchr(path, '?');
	if (!one_of(path, (size_t)((query ? query : path + strlen(path)) - path), paths))
		return refuse(err, errlen, "the path must be /system or /session");
	/* qemu://host/system is TLS to host; qemu+unix:// has no host, and a
	 * remote transport names one */
	if (!is_local && path == auth)
		return refuse(err, errlen, "a remote transport needs a host");
	if (is_local && path != auth && plus)
		return refuse(err, errlen, "a local transport has no host");
	if (path != auth) {
		const char *host = auth;

		at = memchr(auth, '@', (size_t)(path - auth));
		if (at) {
			if (!plain(auth, (size_t)(at - auth), "._-"))
				return refuse(err, errlen, "the user must be a plain name");
			host = at + 1;
		}
		if (host[0] == '[') { /* [IPv6 address] */
			const char *rb = memchr(host, ']', (size_t)(path - host));

			if (!rb || !ipv6_ok(host + 1, (size_t)(rb - host - 1)) ||
			    (rb + 1 != path && rb[1] != ':'))
				return refuse(err, errlen, "the host must be a name or an address");
			colon = rb + 1 != path ? rb + 1 : NULL;
		} else {
			colon = memchr(host, ':', (size_t)(path - host));
			if (!plain(host, (size_t)((colon ? colon : path) - host), ".-_"))
				return refuse(err, errlen, "the host must be a name or an address");
		}
		if (colon) {
			if (colon + 1 == path || colon + 6 < path)
				return refuse(err, errlen, "the port must be a number");
			for (p = colon + 1; p < path; p++)
				if (!isdigit((unsigned char)*p))
					return refuse(err, errlen, "the port must be a number");
		}
	}
	for (p = query; p && *p; ) {
		const char *name = p + 1, *end = strchr(name, '&'), *eq;
		size_t n;
		char what[128];

		if (!end)
			end = name + strlen(name);
		eq = memchr(name, '=', (size_t)(end - name));
		n = (size_t)((eq ? eq : end) - name);
		if (!one_of(name, n, params)) {
			if ((n == 7 && !strncmp(name, "command", 7)))
				return refuse(err, errlen, "command= runs a local program");
			if ((n == 6 && !strncmp(name, "netcat", 6)) || (n == 5 && !strncmp(name, "proxy", 5)))
				snprintf(what, sizeof(what), "%.*s= chooses a program on the far side",
					 (int)n, name);
			else if (n == 6 && !strncmp(name, "socket", 6))
				snprintf(what, sizeof(what), "socket= points at another daemon's socket");
			else
				snprintf(what, sizeof(what), "the parameter '%.*s' is not supported "
					 "(known: keyfile, known_hosts, sshauth, no_verify, no_tty, mode, "
					 "pkipath)", (int)(n < 32 ? n : 32), name);
			return refuse(err, errlen, what);
		}
		/* a value is a path or a word: no second '?' or '=' to confuse parsers */
		for (const char *v = eq ? eq + 1 : end; v < end; v++)
			if (!isalnum((unsigned char)*v) && !strchr("/._-+:,~@", *v))
				return refuse(err, errlen, "a parameter value must be a path or a word");
		p = *end ? end : NULL;
	}
	return 0;
}

bool hb_lvuri_is_local(const char *uri)
{
	const char *sep = uri ? strstr(uri, "://") : NULL;

	return sep && sep[3] == '/';
}
