/* matrix.c - the matrix file of `hugebench nightly`
 * (configs/nightly.matrix): one target per line with its settings,
 *
 *   # comment
 *   defaults suite=quick boots=3            (applies to the lines below it)
 *   debian-6.12 base=debian-6.1
 *   minimal-6.1-regress base=minimal-6.1 suite=smoke boots=1
 *   debian-6.12 ... connect=qemu+ssh://lab1/system   (needs --backend libvirt)
 *
 * keys: suite, boots (1-200), base (a target booted alternately with this
 * one when it has no promoted baseline), connect (a libvirt URI, passed to
 * the run as --backend libvirt --connect URI), timeout (seconds per boot),
 * bisect-budget (0-64: when a source recipe's series shows a new regression
 * against its base, bisect it in at most that many steps; 0, the default,
 * off; autobisect.c), and a git range on a source=ksrc recipe's line:
 * git=PATH good=REV bad=REV (all three; checked and resolved with git as
 * the line is read, gitrange.c; not with base= or connect=).
 * Every error is one line "FILE:LINE: problem; what to do".
 */
#define _GNU_SOURCE
#include "compare.h"
#include "nightly.h"
#include "sysinfo.h"
#include "util.h"
#include "lvuri.h"
#include "userfile.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define KEYS "suite, boots, base, connect, timeout, bisect-budget, git, good, bad"
/* A night boots every target at least once (minutes each under TCG); a
 * row holds 2.3 KiB: 1000 rows are 2.3 MB, where a 1 MiB matrix of 139 000
 * one-word lines held 355 MB (issue 38). */
#define HB_MATRIX_MAX_ROWS 1000

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%d: %s", name, line, msg);
	return -1;
}

/* A target or suite word: what a file name may hold, nothing a shell or
 * a report would trip on. */
static bool word_ok(const char *w)
{
	if (!*w || *w == '-')
		return false;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("._/+-", *w))
			return false;
	return true;
}

static int set_key(struct hb_mrow *r, const char *key, const char *val, char *err, size_t errlen,
		   const char *name, int line)
{
	char *end, ek[4 * HB_EXCERPT_MAX + 4], ev[4 * HB_EXCERPT_MAX + 4];

	/* errors quote the matrix only as short escaped excerpts */
	hb_excerpt(key, (size_t)-1, ek, sizeof(ek));
	hb_excerpt(val, (size_t)-1, ev, sizeof(ev));
	if (!*val)
		return fail(err, errlen, name, line, "%s= has no value", ek);
	if (!strcmp(key, "suite") || !strcmp(key, "base")) {
		char *dst = !strcmp(key, "suite") ? r->suite : r->base;

		if (!word_ok(val) || strlen(val) >= sizeof(r->suite))
			return fail(err, errlen, name, line,
				    "%s=%s: use a name or path of letters, digits and ._/+-", ek, ev);
		snprintf(dst, sizeof(r->suite), "%s", val);
		return 0;
	}
	if (!strcmp(key, "git") || !strcmp(key, "good") || !strcmp(key, "bad")) {
		char *dst = key[0] == 'g' && key[1] == 'i' ? r->git : key[0] == 'g' ? r->good : r->bad;
		size_t max = key[0] == 'g' && key[1] == 'i' ? sizeof(r->git) : sizeof(r->good);

		if (strlen(val) >= max)
			return fail(err, errlen, name, line, "%s=: too long", ek);
		snprintf(dst, max, "%s", val);
		return 0;
	}
	if (!strcmp(key, "connect")) {
		char why[512];

		/* the check --connect gets (lvuri.c): no ext, command=, socket=... */
		if (hb_lvuri_check(val, why, sizeof(why)))
			return fail(err, errlen, name, line, "connect=: %s", why);
		if (strlen(val) >= sizeof(r->connect))
			return fail(err, errlen, name, line, "connect=: the URI is too long");
		snprintf(r->connect, sizeof(r->connect), "%s", val);
		return 0;
	}
	if (!strcmp(key, "boots")) {
		long v;

		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || *end || end == val || v < 1 || v > 200)
			return fail(err, errlen, name, line, "boots=%s: use a whole number from 1 to 200",
				    ev);
		r->boots = (int)v;
		return 0;
	}
	if (!strcmp(key, "bisect-budget")) {
		long v;

		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || *end || end == val || v < 0 || v > 64)
			return fail(err, errlen, name, line,
				    "bisect-budget=%s: use a whole number of bisect steps from 0 (off) "
				    "to 64", ev);
		r->bisect_budget = (int)v;
		return 0;
	}
	if (!strcmp(key, "timeout")) {
		double v;

		errno = 0;
		v = strtod(val, &end);
		if (errno || *end || end == val || !isfinite(v) || v < 1 || v > 7 * 86400)
			return fail(err, errlen, name, line,
				    "timeout=%s: use seconds from 1 to 604800", ev);
		r->timeout_s = v;
		return 0;
	}
	return fail(err, errlen, name, line, "unknown key '%s'; known: " KEYS, ek);
}

/* One line's words after the first into r. */
static int parse_words(char *rest, struct hb_mrow *r, char *err, size_t errlen, const char *name,
		       int line)
{
	char *save = NULL;
	/* the keys of this line so far, " k1 k2 ": a key given twice was
	 * accepted and the last one won (issue 38) */
	char seen[512] = " ";

	for (char *w = strtok_r(rest, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(w, '='), key[64];

		if (!eq || eq == w) {
			char ex[4 * HB_EXCERPT_MAX + 4];

			hb_excerpt(w, (size_t)-1, ex, sizeof(ex));
			return fail(err, errlen, name, line,
				    "'%s' is not key=value; known keys: " KEYS, ex);
		}
		*eq = 0;
		if (set_key(r, w, eq + 1, err, errlen, name, line))
			return -1;
		/* set_key knows every key: w is a short known word here */
		snprintf(key, sizeof(key), " %s ", w);
		if (strstr(seen, key))
			return fail(err, errlen, name, line,
				    "%s= given twice on this line; keep one", w);
		if (strlen(seen) + strlen(key) < sizeof(seen))
			strcat(seen, key + 1);
	}
	return 0;
}

int hb_matrix_parse(const char *text, const char *name, struct hb_matrix *m, char *err,
		    size_t errlen)
{
	struct hb_mrow def = { .suite = "quick", .boots = 1 };
	char *copy = strdup(text), *save = NULL, *ln;
	int line = 0, rc = 0;
	struct hb_cmp_idx seen = { 0 };
	size_t cap = 0;
	memset(m, 0, sizeof(*m));
	if (!copy)
		return fail(err, errlen, name, 0, "out of memory");
	/* strtok_r would merge empty lines: count them by hand */
	for (ln = copy; ln && !rc; line++) {
		char *nl = strchr(ln, '\n'), *first, *hash, exf[4 * HB_EXCERPT_MAX + 4];
		struct hb_mrow r;

		if (nl)
			*nl = 0;
		if ((hash = strchr(ln, '#')))
			*hash = 0;
		first = strtok_r(ln, " \t\r", &save);
		if (!first)
			goto next;
		if (!strcmp(first, "defaults")) {
			rc = parse_words(save, &def, err, errlen, name, line + 1);
			if (!rc && def.base[0])
				rc = fail(err, errlen, name, line + 1,
					  "base= is per target, not in defaults");
			if (!rc && (def.git[0] || def.good[0] || def.bad[0]))
				rc = fail(err, errlen, name, line + 1,
					  "git=, good= and bad= are per target, not in defaults");
			goto next;
		}
		hb_excerpt(first, (size_t)-1, exf, sizeof(exf));
		if (strchr(first, '=')) {
			rc = fail(err, errlen, name, line + 1,
				  "the line starts with '%s'; start it with the target, or with "
				  "'defaults'",
				  exf);
			goto next;
		}
		if (!word_ok(first) || strlen(first) >= sizeof(r.target)) {
			rc = fail(err, errlen, name, line + 1,
				  "target '%s': use a recipe name under kernels/ or a bzImage path", exf);
			goto next;
		}
		r = def;
		snprintf(r.target, sizeof(r.target), "%s", first);
		r.line = line + 1;
		rc = parse_words(save, &r, err, errlen, name, line + 1);
		if (rc)
			goto next;
		if (!strcmp(r.base, r.target)) {
			rc = fail(err, errlen, name, line + 1,
				  "base=%s is the target itself; promote a baseline instead "
				  "(hugebench baseline promote)",
				  r.base);
			goto next;
		}
		if (r.bisect_budget && r.connect[0]) {
			rc = fail(err, errlen, name, line + 1,
				  "bisect-budget= with connect=: the auto-bisect boots with this "
				  "machine's QEMU; set bisect-budget=0 on this line or drop connect=");
			goto next;
		}
		if ((r.git[0] || r.good[0] || r.bad[0]) && (r.base[0] || r.connect[0])) {
			rc = fail(err, errlen, name, line + 1,
				  "%s with git=: a git range's base is its good= commit, booted "
				  "with this machine's QEMU; drop %s", r.base[0] ? "base=" : "connect=",
				  r.base[0] ? "base=" : "connect=");
			goto next;
		}
		{
			char why[1536];

			if (hb_mrow_git_resolve(&r, why, sizeof(why))) {
				rc = fail(err, errlen, name, line + 1, "%s", why);
				goto next;
			}
		}
		{
			/* a hash of the targets so far (keys: the words in copy),
			 * and rows that grow by doubling: a 1 MiB matrix of
			 * 139 000 lines did not parse in 200 s, comparing each
			 * target with every earlier one (issue 38) */
			bool added;
			size_t *at = hb_cmp_idx_put(&seen, NULL, first, NULL, NULL, m->n, &added);

			if (!at) {
				rc = fail(err, errlen, name, line + 1, "out of memory");
				goto next;
			}
			if (!added) {
				rc = fail(err, errlen, name, line + 1,
					  "target %s is already on line %d; one line per target",
					  r.target, m->rows[*at].line);
				goto next;
			}
		}
		if (m->n == HB_MATRIX_MAX_ROWS) {
			rc = fail(err, errlen, name, line + 1,
				  "more than %d targets; a night boots each one: split the matrix",
				  HB_MATRIX_MAX_ROWS);
			goto next;
		}
		if (m->n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct hb_mrow *nr = realloc(m->rows, nc * sizeof(*nr));

			if (!nr) {
				rc = fail(err, errlen, name, line + 1, "out of memory");
				goto next;
			}
			m->rows = nr;
			cap = nc;
		}
		m->rows[m->n++] = r;
next:
		ln = nl ? nl + 1 : NULL;
		save = NULL;
	}
	hb_cmp_idx_free(&seen);
	free(copy);
	if (!rc && !m->n) {
		snprintf(err, errlen, "%s: no targets; add a line such as: debian-6.12 base=debian-6.1",
			 name);
		rc = -1;
	}
	if (rc)
		hb_matrix_free(m);
	return rc;
}

int hb_matrix_load(const char *path, struct hb_matrix *m, char *err, size_t errlen)
{
	size_t len;
	char why[PATH_MAX + 128];
	char *text = hb_userfile_read(path, HB_USERFILE_TEXT_MAX, &len, why, sizeof(why));
	int rc;

	memset(m, 0, sizeof(*m));
	if (!text) {
		snprintf(err, errlen, "cannot read matrix %s; see configs/nightly.matrix", why);
		return -1;
	}
	if (strlen(text) != len) {
		free(text);
		snprintf(err, errlen, "%s: a NUL byte in the file; the matrix is text", path);
		return -1;
	}
	rc = hb_matrix_parse(text, path, m, err, errlen);
	/* its excerpts only from the user's own file (issue 38) */
	if (rc)
		hb_err_unquote(path, "matrix", err, errlen);
	free(text);
	return rc;
}

void hb_matrix_free(struct hb_matrix *m)
{
	free(m->rows);
	m->rows = NULL;
	m->n = 0;
}
