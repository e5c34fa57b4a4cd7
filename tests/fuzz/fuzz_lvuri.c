/* fuzz_lvuri.c - libFuzzer target for the libvirt URI check
 * (hb_lvuri_check, harness/common/lvuri.c): the input is a URI (up to its
 * first NUL). A refusal is one line; an accepted URI uses the qemu driver
 * and holds nothing that makes libvirt run a program or use another
 * socket, else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lvuri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a query parameter called name (libvirt splits on '&', then the first '=') */
static int has_param(const char *uri, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strchr(uri, '?'); p; p = strchr(p + 1, '&'))
		if (!strncmp(p + 1, name, n) && (p[1 + n] == '=' || p[1 + n] == '&' || !p[1 + n]))
			return 1;
	return 0;
}

/* user or host (between "://" and the next '/') that ssh would take as an option */
static int ssh_option(const char *uri)
{
	const char *a = strstr(uri, "://") + 3, *end = strchr(a, '/');
	const char *at = memchr(a, '@', end ? (size_t)(end - a) : strlen(a));

	return a[0] == '-' || (at && at[1] == '-');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *uri = strndup((const char *)data, size), err[512] = "";

	if (!uri)
		return 0;
	if (hb_lvuri_check(uri, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
	} else if (strncmp(uri, "qemu", 4) || !strstr(uri, "://") || !strncmp(uri, "qemu+ext://", 11) ||
		   has_param(uri, "command") || has_param(uri, "netcat") || has_param(uri, "socket") ||
		   has_param(uri, "proxy") || strpbrk(uri, "% \t\r\n'\"\\;$`") || ssh_option(uri)) {
		abort();
	}
	free(uri);
	return 0;
}
