/* procstat.c - /proc/meminfo and /proc/vmstat parsing (see procstat.h). */
#include "procstat.h"

#include <stdlib.h>
#include <string.h>

size_t procstat_parse(const char *text, enum procstat_format fmt, struct hb_kv *out, size_t max)
{
	size_t n = 0;
	const char *p = text;

	while (*p && n < max) {
		const char *eol = strchr(p, '\n');
		size_t linelen = eol ? (size_t)(eol - p) : strlen(p);
		size_t klen = 0;
		const char *v;
		char *end;
		long long val;

		while (klen < linelen && p[klen] != (fmt == PROCSTAT_MEMINFO ? ':' : ' '))
			klen++;
		if (klen == 0 || klen >= linelen || klen >= sizeof(out[n].key))
			goto next;
		v = p + klen + 1;
		val = strtoll(v, &end, 10);
		if (end == v || end > p + linelen)
			goto next;
		memcpy(out[n].key, p, klen);
		out[n].key[klen] = 0;
		out[n].val = val;
		n++;
next:
		if (!eol)
			break;
		p = eol + 1;
	}
	return n;
}

long long procstat_get(const struct hb_kv *kv, size_t n, const char *key, bool *found)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(kv[i].key, key) == 0) {
			if (found)
				*found = true;
			return kv[i].val;
		}
	}
	if (found)
		*found = false;
	return 0;
}
