/* libvirt_guests.c - integration tests of `hugebench run --backend libvirt`
 * (issue 13): tests/integration/libvirt-up.sh starts virtlogd and libvirtd
 * (and a private sshd for the qemu+ssh:// connection); a real debian-6.12
 * guest then runs the quick suite through libvirt, locally and over ssh, and
 * must give the QEMU backend's result; Ctrl-C and the time limit must leave
 * no hugebench domain and no uploaded volume behind. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"
#include "libvirt_guests.h"

#define TARGET "debian-6.12"

static char uri_local[1024], uri_ssh[1024];

/* libvirt-up.sh; its name=value lines into the two URIs. */
static void libvirt_up(void)
{
	char cwd[PATH_MAX], script[PATH_MAX + 64], sshdir[PATH_MAX + 64];
	char out[] = "/tmp/hb-itest-lv-XXXXXX";
	char *argv[] = { script, "--ssh", sshdir, NULL };
	char *text, *p;
	int rc;

	if (uri_local[0] && uri_ssh[0])
		return;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(script, sizeof(script), "%s/tests/integration/libvirt-up.sh", cwd);
	snprintf(sshdir, sizeof(sshdir), "%s/build/test-libvirt-ssh", cwd);
	close(mkstemp(out));
	rc = hb_itest_spawn_to(argv, out);
	text = hb_itest_slurp(out);
	unlink(out);
	if (rc != 0)
		fail_msg("libvirt-up.sh failed (exit %d): %s", rc, text);
	if ((p = strstr(text, "uri=qemu")) && (p == text || p[-1] == '\n'))
		snprintf(uri_local, sizeof(uri_local), "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
	if ((p = strstr(text, "ssh_uri=")))
		snprintf(uri_ssh, sizeof(uri_ssh), "%.*s", (int)strcspn(p + 8, "\n"), p + 8);
	free(text);
	assert_string_equal(uri_local, "qemu:///system");
	assert_int_equal(strncmp(uri_ssh, "qemu+ssh://root@127.0.0.1:", 26), 0);
}

/* Lines of `virsh -c qemu:///system ARGS` whose first word starts with
 * "hugebench-" and ends with suffix ("" for any). */
static int count_hugebench(char *const args[], const char *suffix)
{
	char out[] = "/tmp/hb-itest-virsh-XXXXXX";
	char *argv[16] = { "/usr/bin/virsh", "-c", "qemu:///system" };
	char *text, *line;
	int n = 0, a = 3;

	for (int i = 0; args[i] && a < 15; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	close(mkstemp(out));
	hb_itest_spawn_to(argv, out);
	text = hb_itest_slurp(out);
	unlink(out);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		size_t w;

		line += strspn(line, " ");
		w = strcspn(line, " ");
		n += strncmp(line, "hugebench-", 10) == 0 && w >= strlen(suffix) &&
		     strncmp(line + w - strlen(suffix), suffix, strlen(suffix)) == 0;
	}
	free(text);
	return n;
}

static int hugebench_domains(void)
{
	return count_hugebench((char *[]){ "list", "--all", "--name", NULL }, "");
}

/* A boot's uploads (the TCG wrapper volume is kept on purpose). */
static int hugebench_volumes(void)
{
	return count_hugebench((char *[]){ "vol-list", "hugebench", NULL }, "-kernel") +
	       count_hugebench((char *[]){ "vol-list", "hugebench", NULL }, "-initrd");
}

/* The newest QEMU-backend quick run of TARGET under the test results (the
 * one test_quick_debian_6_12 made), else one made now. */
static json_t *qemu_quick(void)
{
	char dir[PATH_MAX], best[PATH_MAX] = "", path[PATH_MAX + 32];
	struct hb_itest_run r;
	struct dirent *e;
	DIR *d;
	json_t *res;

	snprintf(dir, sizeof(dir), "%s/" TARGET, hb_itest_results_dir());
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 6, "-quick"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/result.json", dir, e->d_name);
		res = json_load_file(path, 0, NULL);
		if (res && !strcmp(hb_itest_str(res, "verdict"), "pass") &&
		    strcmp(hb_itest_str(json_object_get(res, "environment"), "backend"), "libvirt") &&
		    strcmp(e->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", e->d_name);
		json_decref(res);
	}
	if (d)
		closedir(d);
	if (best[0]) {
		snprintf(path, sizeof(path), "%s/%s/result.json", dir, best);
		return json_load_file(path, 0, NULL);
	}
	hb_itest_run_suite(TARGET, "quick", NULL, &r);
	assert_int_equal(r.exit_code, 0);
	res = json_incref(r.result);
	hb_itest_run_free(&r);
	return res;
}

/* The same workloads with the same status, the same checks (name, rep) with
 * the same outcome and the same metrics measured: what the guest did does
 * not depend on the backend (the values do: timings). */
static void assert_same_result(json_t *q, json_t *l)
{
	json_t *qw, *qc;
	size_t i, k;

	assert_string_equal(hb_itest_str(l, "verdict"), hb_itest_str(q, "verdict"));
	assert_string_equal(hb_itest_str(json_object_get(l, "target"), "kernel_release"),
			    hb_itest_str(json_object_get(q, "target"), "kernel_release"));
	assert_string_equal(hb_itest_str(json_object_get(l, "environment"), "accelerator"),
			    hb_itest_str(json_object_get(q, "environment"), "accelerator"));
	assert_int_equal(json_array_size(json_object_get(l, "workloads")),
			 json_array_size(json_object_get(q, "workloads")));
	assert_int_equal(json_array_size(json_object_get(l, "kernel_issues")),
			 json_array_size(json_object_get(q, "kernel_issues")));
	json_array_foreach(json_object_get(q, "workloads"), i, qw) {
		const char *name = hb_itest_str(qw, "name");
		json_t *lw = hb_itest_workload(l, name), *lc, *qm;
		size_t j;

		assert_non_null(lw);
		assert_string_equal(hb_itest_str(lw, "status"), hb_itest_str(qw, "status"));
		assert_int_equal(json_array_size(json_object_get(lw, "checks")),
				 json_array_size(json_object_get(qw, "checks")));
		json_array_foreach(json_object_get(qw, "checks"), k, qc) {
			bool found = false;

			json_array_foreach(json_object_get(lw, "checks"), j, lc) {
				if (strcmp(hb_itest_str(lc, "name"), hb_itest_str(qc, "name")) ||
				    json_integer_value(json_object_get(lc, "rep")) !=
					    json_integer_value(json_object_get(qc, "rep")))
					continue;
				found = true;
				if (json_is_true(json_object_get(lc, "pass")) !=
				    json_is_true(json_object_get(qc, "pass")))
					fail_msg("%s: check %s passed under one backend only", name,
						 hb_itest_str(qc, "name"));
			}
			if (!found)
				fail_msg("%s: check %s missing under libvirt", name,
					 hb_itest_str(qc, "name"));
		}
		json_array_foreach(json_object_get(qw, "metrics"), k, qm)
			assert_non_null(hb_itest_metric(lw, hb_itest_str(qm, "name")));
	}
}

static void quick_through(const char *uri)
{
	struct hb_itest_run r;
	json_t *q, *env;

	libvirt_up();
	q = qemu_quick();
	assert_non_null(q);
	hb_itest_run_suite(TARGET, "quick",
			   (const char *[]){ "--backend", "libvirt", "--connect", uri, NULL }, &r);
	if (r.exit_code != 0)
		fail_msg("libvirt run exit %d: %s", r.exit_code, r.err);
	assert_non_null(r.result);
	env = json_object_get(r.result, "environment");
	assert_string_equal(hb_itest_str(env, "backend"), "libvirt");
	assert_string_equal(hb_itest_str(env, "libvirt_uri"), uri);
	assert_string_equal(hb_itest_str(json_object_get(q, "environment"), "backend"), "qemu");
	assert_same_result(q, r.result);
	/* console and stream came back over the libvirt streams */
	assert_true(hb_itest_file_size(r.dir, "console.log") > 1000);
	assert_true(hb_itest_file_size(r.dir, "stream.jsonl") > 1000);
	assert_int_equal(hugebench_domains(), 0);
	assert_int_equal(hugebench_volumes(), 0);
	json_decref(q);
	hb_itest_run_free(&r);
}

void test_libvirt_quick_local(void **state)
{
	(void)state;
	quick_through("qemu:///system");
}

void test_libvirt_quick_ssh(void **state)
{
	(void)state;
	libvirt_up();
	quick_through(uri_ssh);
}

static int domains_while_up = -1;

static void count_while_up(const char *dir)
{
	(void)dir;
	domains_while_up = hugebench_domains();
}

/* Ctrl-C in a terminal goes to the whole process group: the ssh that
 * libvirt started under hugebench gets SIGINT too. */
static bool sigint_if_ssh(pid_t pid, const char *cmdline, void *arg)
{
	(void)arg;
	if (strncmp(cmdline, "ssh ", 4) == 0 && strstr(cmdline, "test-libvirt-ssh/id"))
		kill(pid, SIGINT);
	return false;
}

static void sigint_ssh_too(const char *dir)
{
	count_while_up(dir);
	hb_itest_procs(sigint_if_ssh, NULL);
}

static void interrupted_through(const char *uri, void (*while_up)(const char *dir))
{
	const char *extra[] = { "--backend", "libvirt", "--connect", uri, "--timeout", "300",
				"--cmdline", "hb.hang=1", NULL };
	struct hb_itest_run r;

	libvirt_up();
	domains_while_up = -1;
	hb_itest_run_killed(TARGET, extra, 10, SIGINT, while_up, &r);
	/* the domain existed, so its absence afterwards means something */
	assert_int_equal(domains_while_up, 1);
	assert_int_equal(r.exit_code, 3);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "incomplete");
	assert_int_equal(hugebench_domains(), 0);
	assert_int_equal(hugebench_volumes(), 0);
	hb_itest_run_free(&r);
}

void test_libvirt_interrupt_local(void **state)
{
	(void)state;
	interrupted_through("qemu:///system", count_while_up);
}

void test_libvirt_interrupt_ssh(void **state)
{
	(void)state;
	libvirt_up();
	interrupted_through(uri_ssh, sigint_ssh_too);
}

/* A guest that never finishes: the time limit destroys the domain. */
void test_libvirt_timeout(void **state)
{
	struct hb_itest_run r;

	(void)state;
	libvirt_up();
	hb_itest_assert_timed_out(TARGET, (const char *[]){ "--backend", "libvirt", NULL }, &r);
	assert_int_equal(hugebench_domains(), 0);
	assert_int_equal(hugebench_volumes(), 0);
	hb_itest_run_free(&r);
}

/* A guest that goes silent after booting: the stall watchdog ends it as
 * under the QEMU backend, and the domain is gone. */
void test_libvirt_stall(void **state)
{
	struct hb_itest_run r;

	(void)state;
	libvirt_up();
	hb_itest_assert_stalled(TARGET, (const char *[]){ "--backend", "libvirt", "--connect", uri_ssh,
							   NULL },
				&r);
	assert_int_equal(hugebench_domains(), 0);
	assert_int_equal(hugebench_volumes(), 0);
	hb_itest_run_free(&r);
}

/* Every result.json under dir (recursively: one per boot): environment.backend is
 * libvirt and libvirt_uri starts with uri_prefix. Returns how many. */
static int boots_through(const char *dir, const char *uri_prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (!strcmp(e->d_name, "result.json")) {
			json_t *r = json_load_file(p, 0, NULL), *env = json_object_get(r, "environment");

			if (!r || strcmp(hb_itest_str(env, "backend"), "libvirt") ||
			    strncmp(hb_itest_str(env, "libvirt_uri"), uri_prefix, strlen(uri_prefix)))
				fail_msg("%s: backend %s, uri %s; want libvirt on %s...", p,
					 hb_itest_str(env, "backend"), hb_itest_str(env, "libvirt_uri"),
					 uri_prefix);
			json_decref(r);
			n++;
		} else if (e->d_type == DT_DIR) {
			n += boots_through(p, uri_prefix);
		}
	}
	closedir(d);
	return n;
}

/* `hugebench nightly` spread over two libvirt connections at once (issue
 * 13's scale-out path): minimal-6.1 on qemu:///system, the planted
 * regression pair (minimal-6.1 vs minimal-6.1-regress, one `ab`, so both
 * sides on one host) on the qemu+ssh:// connection. The night exits 1, its
 * JUnit names the broken PMD check, and every boot says which connection ran
 * it. */
void test_libvirt_nightly_two_connections(void **state)
{
	char cwd[PATH_MAX], res[PATH_MAX + 64], mx[PATH_MAX + 80], p[PATH_MAX + 128];
	char night[PATH_MAX], matrix[4096];
	char *argv[] = { "nightly", "--matrix", mx, "--results", res, NULL };
	struct hb_itest_out o;
	double t0 = hb_itest_now();
	char *text;

	(void)state;
	libvirt_up();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(res, sizeof(res), "%s/%s", hb_itest_results_dir()[0] == '/' ? "" : cwd,
		 hb_itest_results_dir());
	mkdir(res, 0755); /* may be there */
	snprintf(res, sizeof(res), "%s/%s/nightly-lv-%d",
		 hb_itest_results_dir()[0] == '/' ? "" : cwd, hb_itest_results_dir(), (int)getpid());
	assert_int_equal(mkdir(res, 0755), 0);
	snprintf(mx, sizeof(mx), "%s/lv.matrix", res);
	snprintf(matrix, sizeof(matrix),
		 "defaults suite=smoke boots=1\nminimal-6.1 connect=%s\n"
		 "minimal-6.1-regress base=minimal-6.1 connect=%s\n",
		 uri_local, uri_ssh);
	hb_itest_write(mx, matrix);
	hb_itest_hugebench(argv, &o);
	if (o.exit_code != 1)
		fail_msg("nightly over two connections: exit %d, want 1:\n%s\n%s", o.exit_code, o.out,
			 o.err);
	hb_itest_line_after(o.out, " -> ", night, sizeof(night));
	assert_true(night[0]);
	assert_non_null(strstr(o.out, "--backend libvirt --connect qemu:///system"));
	assert_non_null(strstr(o.out, "--backend libvirt --connect qemu+ssh://"));
	hb_itest_out_free(&o);
	/* one boot of minimal-6.1 locally; both sides of the pair over ssh */
	snprintf(p, sizeof(p), "%s/minimal-6.1", night);
	assert_int_equal(boots_through(p, "qemu:///system"), 1);
	snprintf(p, sizeof(p), "%s/minimal-6.1-regress", night);
	assert_int_equal(boots_through(p, "qemu+ssh://"), 2);
	snprintf(p, sizeof(p), "%s/junit.xml", night);
	text = hb_itest_slurp(p);
	assert_non_null(text);
	if (!strstr(text, "<failure type=\"check\" message=\"fault.huge_ShmemPmdMapped"))
		fail_msg("junit.xml does not name the broken PMD check:\n%s", text);
	free(text);
	assert_int_equal(hugebench_domains(), 0);
	printf("nightly over 2 libvirt connections: %.0f s\n", hb_itest_now() - t0);
}
