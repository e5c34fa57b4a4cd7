/* helpers.c - the general helpers every unit test links (helpers.h): the
 * source tree and data paths, a scratch folder, files in and out, stdout of
 * a command captured, a program run to its end, stream events read back. */
#define _GNU_SOURCE
#include "helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hb_runner.h"
#include "sysinfo.h"
#include "util.h"

char hbt_dir[PATH_MAX];

/* tests/unit, the folder of this file. */
static const char *unit_dir(void)
{
	static char dir[PATH_MAX];
	const char *slash = strrchr(__FILE__, '/');

	if (!dir[0])
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - __FILE__) : 1,
			 slash ? __FILE__ : ".");
	return dir;
}

const char *hbt_root(void)
{
	static char root[PATH_MAX];
	char p[PATH_MAX + 8];

	if (!root[0]) {
		snprintf(p, sizeof(p), "%s/../..", unit_dir());
		if (!realpath(p, root))
			root[0] = 0;
	}
	return root;
}

const char *hbt_in_root(const char *rel)
{
	static char bufs[8][PATH_MAX + 256];
	static int k;
	char *b = bufs[k++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", hbt_root(), rel);
	return b;
}

const char *hbt_data(const char *name)
{
	static char bufs[8][PATH_MAX + 256];
	static int k;
	char *b = bufs[k++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/data/%s", unit_dir(), name);
	return b;
}

int hbt_tmpdir(const char *tag)
{
	snprintf(hbt_dir, sizeof(hbt_dir), "/tmp/hb-test-%s-XXXXXX", tag);
	return mkdtemp(hbt_dir) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int hbt_rm_rf(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int hbt_teardown(void **state)
{
	(void)state;
	return hbt_dir[0] ? hbt_rm_rf(hbt_dir) : 0;
}

char *hbt_path(const char *name)
{
	static char bufs[32][PATH_MAX + 256];
	static int k;
	char *b = bufs[k++ % 32];

	snprintf(b, sizeof(bufs[0]), "%s/%s", hbt_dir, name);
	return b;
}

const char *hbt_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

char *hbt_write_tmp(const char *name, const char *text)
{
	char *p = hbt_path(name);

	hbt_write(p, text);
	return p;
}

char *hbt_write_json(const char *name, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1)), *p = hbt_write_tmp(name, s);

	free(s);
	json_decref(j);
	return p;
}

int hbt_capture(int (*fn)(int, char **), int argc, char **argv, char **out)
{
	FILE *saved = stdout, *f = tmpfile();
	long len;
	int ret;

	assert_non_null(f);
	stdout = f;
	ret = fn(argc, argv);
	fflush(stdout);
	stdout = saved;
	len = ftell(f);
	rewind(f);
	if (out) {
		*out = calloc(1, (size_t)len + 1);
		assert_non_null(*out);
		assert_int_equal(fread(*out, 1, (size_t)len, f), (size_t)len);
	}
	fclose(f);
	return ret;
}

int hbt_run_to_end(char *const argv[], const char *errpath, bool both)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (both)
			dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv); /* a path with a / is run as it is */
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

json_t *hbt_events_text(const char *text, const char *ev, bool strict)
{
	char *copy = text ? strdup(text) : NULL, *save = NULL;
	json_t *a = json_array();

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(l, 0, NULL);
		const char *e = json_string_value(json_object_get(o, "ev"));

		if (strict)
			assert_non_null(o);
		if (o && !strcmp(e ? e : "", ev))
			json_array_append(a, o);
		json_decref(o);
	}
	free(copy);
	return a;
}

json_t *hbt_events(const char *stream, const char *ev)
{
	char *text = hb_slurp(stream, NULL);
	json_t *a = hbt_events_text(text, ev, false);

	free(text);
	return a;
}

int hbt_left_behind(const char *dir, const char *except)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int left = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char p[PATH_MAX + 300];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || (except && strcmp(p, except) == 0))
			continue;
		if (lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
			print_error("left behind: %s\n", p);
			left++;
		}
	}
	closedir(d);
	return left;
}

void hbt_cap_open(struct hbt_cap *c, const struct hb_workload *w)
{
	char path[] = "/tmp/hb-test-cap-XXXXXX";

	c->fd = mkstemp(path);
	assert_true(c->fd >= 0);
	unlink(path);
	c->ctx = hb_ctx_new(w, 0, c->fd);
	assert_non_null(c->ctx);
}

json_t *hbt_cap_event(struct hbt_cap *c, const char *ev, int n)
{
	static char buf[1 << 16];
	ssize_t len = pread(c->fd, buf, sizeof(buf) - 1, 0);
	json_t *all, *one;

	assert_true(len >= 0);
	buf[len] = 0;
	all = hbt_events_text(buf, ev, true);
	one = json_incref(json_array_get(all, (size_t)n));
	json_decref(all);
	return one;
}

void hbt_cap_close(struct hbt_cap *c)
{
	hb_ctx_free(c->ctx);
	close(c->fd);
}

static const char *str_or_empty(json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

json_t *hbt_cap_named(struct hbt_cap *c, const char *ev, const char *name)
{
	json_t *one = NULL, *e;

	for (int i = 0; (e = hbt_cap_event(c, ev, i)); i++) {
		if (!strcmp(str_or_empty(json_object_get(e, "name")), name)) {
			json_decref(one);
			one = e;
		} else {
			json_decref(e);
		}
	}
	return one;
}

bool hbt_cap_check_pass(struct hbt_cap *c, const char *name)
{
	json_t *e = hbt_cap_named(c, "check", name);
	bool pass;

	if (!e)
		fail_msg("no check %s", name);
	pass = json_is_true(json_object_get(e, "pass"));
	json_decref(e);
	return pass;
}

const char *hbt_cap_check_observed(struct hbt_cap *c, const char *name)
{
	static char buf[1024];
	json_t *e = hbt_cap_named(c, "check", name);

	if (!e)
		fail_msg("no check %s", name);
	snprintf(buf, sizeof(buf), "%s", str_or_empty(json_object_get(e, "observed")));
	json_decref(e);
	return buf;
}

const char *hbt_cap_unavailable(struct hbt_cap *c, const char *name)
{
	static char buf[1024];
	json_t *e = hbt_cap_named(c, "metric", name);
	const char *u;

	if (!e)
		fail_msg("no metric %s", name);
	u = json_string_value(json_object_get(e, "unavailable"));
	if (u)
		snprintf(buf, sizeof(buf), "%s", u);
	json_decref(e);
	return u ? buf : NULL;
}

const char *hbt_cap_notes(struct hbt_cap *c)
{
	static char buf[8192];
	size_t n = 0;
	json_t *e;

	buf[0] = 0;
	for (int i = 0; (e = hbt_cap_event(c, "note", i)); i++) {
		n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s\n",
				      str_or_empty(json_object_get(e, "text")));
		json_decref(e);
		if (n >= sizeof(buf))
			break;
	}
	return buf;
}

bool hbt_huge_subject(const struct hb_workload *w, hbt_subject_fn fn, const char *name,
		      size_t size, long long huge_kb, long long pmd_kb, bool *check_pass)
{
	struct hb_snap a, b;
	struct hbt_cap c;
	char spec[160];
	bool ok;

	hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=0");
	snprintf(spec, sizeof(spec), "ShmemHugePages=%lld ShmemPmdMapped=%lld vm.thp_file_alloc=%lld",
		 huge_kb, pmd_kb, (long long)(size >> 21));
	hbt_snap(&b, spec);
	hbt_cap_open(&c, w);
	ok = fn(c.ctx, &a, &b, size);
	*check_pass = hbt_cap_check_pass(&c, name);
	assert_non_null(strstr(hbt_cap_check_observed(&c, name), "attempts: thp_file_alloc"));
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

void hbt_huge_subject_cases(const struct hb_workload *w, hbt_subject_fn fn, const char *name,
			    size_t size, bool pmd_required)
{
	long long kb = (long long)(size >> 10);
	bool p;

	assert_false(hbt_huge_subject(w, fn, name, size, 0, 0, &p));
	assert_false(p);
	assert_false(hbt_huge_subject(w, fn, name, size, kb - 2048, kb, &p));
	assert_true(hbt_huge_subject(w, fn, name, size, kb, kb, &p));
	assert_true(p);
	assert_int_equal(hbt_huge_subject(w, fn, name, size, kb, 0, &p), !pmd_required);
}

void hbt_snap(struct hb_snap *s, const char *spec)
{
	char buf[1024], *save = NULL;

	memset(s, 0, sizeof(*s));
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		struct hb_kv *kv;

		assert_non_null(eq);
		*eq = 0;
		if (!strncmp(w, "vm.", 3)) {
			kv = &s->vmstat[s->n_vmstat++];
			w += 3;
		} else {
			kv = &s->meminfo[s->n_meminfo++];
		}
		snprintf(kv->key, sizeof(kv->key), "%s", w);
		kv->val = atoll(eq + 1);
	}
}
