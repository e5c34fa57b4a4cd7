/* util.c - host-side helpers (see util.h). */
#define _GNU_SOURCE
#include "sysinfo.h"
#include "userfile.h"
#include "util.h"

#include <errno.h>
#include <openssl/evp.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void vmsg(const char *fmt, va_list ap, int err)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (err)
		fprintf(stderr, "hugebench: %s: %s\n", buf, strerror(err));
	else
		fprintf(stderr, "hugebench: %s\n", buf);
}

void hb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void hb_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
}

void hb_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void hb_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

json_t *hb_json_text(const char *s)
{
	char *c = strdup(s ? s : "");
	json_t *j;

	if (!c)
		return json_string("");
	for (char *p = c; *p; p++)
		if ((unsigned char)*p > 0x7e || ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t'))
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

int hb_mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

int hb_write_text(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	int fd, e;

	/* A fresh name (mkostemp: O_EXCL, never an existing file or a planted
	 * symlink), fsync, then rename over the old one: readers see the old
	 * file or the new one, never half of one. */
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0644) == 0) {
		size_t off = 0;

		while (off < len) {
			ssize_t n = write(fd, text + off, len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		if (off == len && fsync(fd) == 0 && close(fd) == 0) {
			if (rename(tmp, path) == 0)
				return 0;
			e = errno;
			unlink(tmp);
			errno = e;
			return -1;
		}
	}
	e = errno;
	close(fd);
	unlink(tmp);
	errno = e;
	return -1;
}

bool hb_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool hb_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void hb_hex(const unsigned char *d, unsigned int n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned int i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

int hb_sha256_hex(const void *data, size_t len, char out_hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL))
		return -1;
	hb_hex(md, mdlen, out_hex);
	return 0;
}

int hb_sha256_file(const char *path, char out_hex[65])
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	int rc = -1, saved;
	size_t n;
	/* a regular file only, opened without blocking (a FIFO named as a
	 * patch or kernel image must not hang the run) */
	int fd = hb_userfile_open(path, HB_USERFILE_ANY_MAX, NULL, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;

	if (!f) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (!EVP_DigestUpdate(ctx, buf, n))
			goto out;
	if (ferror(f) || !EVP_DigestFinal_ex(ctx, md, &mdlen))
		goto out;
	hb_hex(md, mdlen, out_hex);
	rc = 0;
out:
	saved = errno;
	EVP_MD_CTX_free(ctx);
	fclose(f);
	errno = saved ? saved : EIO;
	return rc;
}

double hb_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hb_utc_stamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

void hb_utc_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *hb_root(void)
{
	static char root[PATH_MAX];
	const char *env = getenv("HUGEBENCH_ROOT");

	if (root[0])
		return root;
	if (env && *env) {
		snprintf(root, sizeof(root), "%s", env);
		return root;
	}
	/* The binary lives in <root>/build/hugebench, or deeper (build/san/):
	 * the root is the first folder above it that holds kernels/ and the
	 * Makefile. */
	ssize_t n = readlink("/proc/self/exe", root, sizeof(root) - 1);

	if (n > 0) {
		root[n] = 0;
		for (char *slash = strrchr(root, '/'); slash; slash = strrchr(root, '/')) {
			char probe[PATH_MAX + 16];

			*slash = 0;
			if (!root[0])
				break;
			snprintf(probe, sizeof(probe), "%s/Makefile", root);
			if (access(probe, F_OK) == 0) {
				snprintf(probe, sizeof(probe), "%s/kernels", root);
				if (access(probe, F_OK) == 0)
					return root;
			}
		}
	}
	snprintf(root, sizeof(root), ".");
	return root;
}

int hb_cache_dir_for(bool root, const char *env_cache, const char *cwd, const char *xdg,
		     const char *home, char *out, size_t len, const char **origin)
{
	int n;

	if (env_cache && *env_cache) {
		/* absolute, so that scripts, QEMU and child processes started
		 * elsewhere all name the same folder */
		if (env_cache[0] == '/' || !cwd || !*cwd)
			n = snprintf(out, len, "%s", env_cache);
		else
			n = snprintf(out, len, "%s/%s", cwd, env_cache);
		*origin = "HUGEBENCH_CACHE";
	} else if (root) {
		/* one cache for every clone, as apt keeps /var/cache/apt; the
		 * build account reaches it (0755 folders, builds chown their part) */
		n = snprintf(out, len, "%s", HB_SYSTEM_CACHE);
		*origin = "default for root";
	} else if (xdg && xdg[0] == '/') {
		/* the XDG Base Directory spec: a relative value is ignored */
		n = snprintf(out, len, "%s/hugebench", xdg);
		*origin = "default: $XDG_CACHE_HOME";
	} else if (home && home[0] == '/') {
		n = snprintf(out, len, "%s/.cache/hugebench", home);
		*origin = "default: ~/.cache";
	} else {
		out[0] = 0;
		*origin = "none";
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		out[0] = 0;
		return -1;
	}
	/* no trailing slashes: the folder's name is compared and printed */
	while (n > 1 && out[n - 1] == '/')
		out[--n] = 0;
	return 0;
}

static const char *g_cache_origin = "";

const char *hb_cache_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		char cwd[PATH_MAX];
		const char *home = getenv("HOME");
		struct passwd *pw = NULL;

		if (!getcwd(cwd, sizeof(cwd)))
			cwd[0] = 0;
		if (!home || home[0] != '/') {
			pw = getpwuid(geteuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (hb_cache_dir_for(geteuid() == 0, getenv("HUGEBENCH_CACHE"), cwd,
				     getenv("XDG_CACHE_HOME"), home, dir, sizeof(dir),
				     &g_cache_origin)) {
			/* no HUGEBENCH_CACHE, not root, no home: the clone */
			snprintf(dir, sizeof(dir), "%s/.cache", hb_root());
			g_cache_origin = "fallback: no HOME, the clone's .cache";
		}
	}
	return dir;
}

const char *hb_cache_origin(void)
{
	hb_cache_dir();
	return g_cache_origin;
}

/* The CACHEDIR.TAG of https://bford.info/cachedir/: backup tools skip the
 * folder, and `hugebench cache clean` empties only a folder that has it. */
#define HB_CACHEDIR_TAG "Signature: 8a477f597d28d172789f06886806bc55\n" \
	"# This file is a cache directory tag created by hugebench.\n" \
	"# Everything here can be made again; `hugebench cache clean` empties it.\n"

int hb_cache_ensure(void)
{
	static int held = -1;
	char path[PATH_MAX + 16];

	if (hb_mkdir_p(hb_cache_dir()))
		return -1;
	/* the build account must reach the system cache whatever root's umask */
	if (geteuid() == 0 && !strcmp(hb_cache_dir(), HB_SYSTEM_CACHE))
		(void)chmod(HB_SYSTEM_CACHE, 0755);
	snprintf(path, sizeof(path), "%s/CACHEDIR.TAG", hb_cache_dir());
	if (access(path, F_OK) && hb_write_text(path, HB_CACHEDIR_TAG))
		return -1;
	/* A shared lock for as long as this process lives: `hugebench cache
	 * clean` takes it exclusively and so never empties the cache under a
	 * running fetch, build or boot (children need not hold it: the guard
	 * ends them with us). */
	if (held < 0) {
		snprintf(path, sizeof(path), "%s/.in-use.lock", hb_cache_dir());
		held = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (held >= 0 && flock(held, LOCK_SH) != 0) {
			close(held);
			held = -1;
		}
	}
	return 0;
}

int hb_parse_double(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* nan compares false with everything: the range test rejects it too */
	if (end == s || *end || errno == ERANGE || !(v >= min && v <= max)) {
		hb_err("%s %s: want a number from %g to %g", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int hb_parse_int(const char *opt, const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno == ERANGE || v < min || v > max || v < INT_MIN ||
	    v > INT_MAX) {
		hb_err("%s %s: want a whole number from %ld to %ld", opt, s, min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

bool hb_kv_get(const char *buf, const char *name, char *out, size_t outlen)
{
	size_t len = strlen(name);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, name, len) && p[len] == '=') {
			const char *v = p + len + 1;
			size_t vlen = strcspn(v, "\n");

			if (vlen >= outlen)
				return false;
			memcpy(out, v, vlen);
			out[vlen] = 0;
			return true;
		}
	}
	return false;
}

/* the name of a file that makes its folder a run or a run group */
static bool run_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "result.json") || !strcmp(base, "group.json");
}

int hb_output_check(const char *opt, const char *output, const char *const *inputs, size_t n,
		    char *err, size_t errlen)
{
	char odir[PATH_MAX], oreal[PATH_MAX], ireal[PATH_MAX], idir[PATH_MAX], ofile[PATH_MAX];
	const char *base = strrchr(output, '/');
	struct stat so, si;
	bool exists = !stat(output, &so);

	base = base ? base + 1 : output;
	if (!exists && !lstat(output, &si) && S_ISLNK(si.st_mode)) {
		/* a link to nothing yet: fopen would create its target, anywhere */
		snprintf(err, errlen, "%s %s: a link to a file that does not exist; write elsewhere",
			 opt, output);
		return -1;
	}
	snprintf(odir, sizeof(odir), "%.*s", base == output ? 1 : (int)(base - output - 1),
		 base == output ? "." : output);
	if (!odir[0])
		snprintf(odir, sizeof(odir), "/");
	if (!realpath(odir, oreal))
		return 0; /* the write itself fails and says so */
	if (exists && realpath(output, ofile) && S_ISREG(so.st_mode)) {
		/* a link to a run's file: the folder written into is the file's */
		char *s = strrchr(ofile, '/');

		snprintf(oreal, sizeof(oreal), "%.*s", s && s != ofile ? (int)(s - ofile) : 1,
			 s && s != ofile ? ofile : "/");
	}
	for (size_t i = 0; i < n; i++) {
		const char *slash;

		if (!inputs[i])
			continue;
		if (exists && !stat(inputs[i], &si) && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			snprintf(err, errlen, "%s %s is %s, one of the inputs: it would be replaced; "
				 "write elsewhere", opt, output, inputs[i]);
			return -1;
		}
		/* a run's folder: no result.json or group.json put there (another
		 * run), and no file there replaced (issue 38, third audit:
		 * --output RUN/stream.jsonl replaced the guest's own record) */
		if (!(run_name(base) || (exists && run_name(inputs[i]))))
			continue;
		if (!realpath(inputs[i], ireal))
			continue;
		slash = strrchr(ireal, '/');
		snprintf(idir, sizeof(idir), "%.*s", slash && slash != ireal ? (int)(slash - ireal) : 1,
			 slash && slash != ireal ? ireal : "/");
		if (!strcmp(idir, oreal) && run_name(base)) {
			snprintf(err, errlen, "%s %s would put a %s into %s, the folder of an input run; "
				 "write elsewhere", opt, output, base, idir);
			return -1;
		}
		if (!strcmp(idir, oreal)) {
			snprintf(err, errlen, "%s %s would replace a file of the input run in %s; "
				 "write elsewhere", opt, output, idir);
			return -1;
		}
	}
	return 0;
}
