/* modules.c - modules.dep resolution for the guest image (see modules.h). */
#define _GNU_SOURCE
#include "modules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hb_modname_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '_' ? '-' : *a, y = *b == '_' ? '-' : *b;

		if (x != y)
			return 0;
	}
	return !*a && !*b;
}

/* Name of a module from its path: basename up to ".ko". */
static void modname(const char *path, size_t len, char *out, size_t outlen)
{
	const char *base = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t n = (size_t)(path + len - base);
	const char *ko = memmem(base, n, ".ko", 3);

	if (ko)
		n = (size_t)(ko - base);
	snprintf(out, outlen, "%.*s", (int)n, base);
}

/* Find the modules.dep line for name; returns pointer to its start or NULL. */
static const char *dep_line(const char *dep, const char *name)
{
	const char *p = dep;

	while (p && *p) {
		const char *colon = strchr(p, ':');
		const char *eol = strchr(p, '\n');
		char n[64];

		if (colon && (!eol || colon < eol)) {
			modname(p, (size_t)(colon - p), n, sizeof(n));
			if (hb_modname_eq(n, name))
				return p;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

static int have(const struct hb_modfile *out, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (hb_modname_eq(out[i].name, name))
			return 1;
	return 0;
}

static size_t add(const char *moddir, const char *dep, const char *name, const char *params,
		  struct hb_modfile *out, size_t n, size_t max, int depth)
{
	const char *line = dep_line(dep, name);
	const char *colon, *eol;
	char deps[32][64];
	int nd = 0;

	if (!line || depth > 16 || have(out, n, name) || n >= max)
		return n;
	colon = strchr(line, ':');
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	/* modules.dep lists a module's dependencies so that the last one must be
	 * loaded first. */
	for (const char *q = colon + 1; q < eol && nd < 32;) {
		while (q < eol && *q == ' ')
			q++;
		const char *e = q;

		while (e < eol && *e != ' ')
			e++;
		if (e > q)
			modname(q, (size_t)(e - q), deps[nd++], sizeof(deps[0]));
		q = e;
	}
	for (int i = nd - 1; i >= 0; i--)
		n = add(moddir, dep, deps[i], NULL, out, n, max, depth + 1);
	if (n >= max || have(out, n, name))
		return n;
	modname(line, (size_t)(colon - line), out[n].name, sizeof(out[n].name));
	snprintf(out[n].path, sizeof(out[n].path), "%s/%.*s", moddir, (int)(colon - line), line);
	snprintf(out[n].params, sizeof(out[n].params), "%s", params ? params : "");
	return n + 1;
}

/* Whether a line's "[workload]" prefix (at name, already past blanks)
 * lets it through for this suite; name is moved past the prefix. */
static int wanted_by(char **name, const char *const *workloads)
{
	char *w = *name, *end;

	if (*w != '[')
		return 1;
	end = strchr(w, ']');
	if (!end)
		return 1; /* not a prefix: the name as written (absent, skipped) */
	*end = 0;
	*name = end + 1 + strspn(end + 1, " \t");
	if (!workloads)
		return 1;
	for (size_t i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i], w + 1))
			return 1;
	return 0;
}

size_t hb_modules_resolve(const char *moddir, const char *dep_text, const char *wanted,
			  const char *const *workloads, struct hb_modfile *out, size_t max)
{
	char *copy = strdup(wanted), *save = NULL, *line;
	size_t n = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *name, *params;

		line[strcspn(line, "#")] = 0;
		name = line + strspn(line, " \t");
		if (!*name || !wanted_by(&name, workloads) || !*name)
			continue;
		params = name + strcspn(name, " \t");
		if (*params)
			*params++ = 0;
		params += strspn(params, " \t");
		n = add(moddir, dep_text, name, params, out, n, max, 0);
	}
	free(copy);
	return n;
}
