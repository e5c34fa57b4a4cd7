/* test_lvuri.c - the one check of a user's libvirt URI (harness/common/
 * lvuri.c), used by --connect and a nightly matrix's connect= (issue 23):
 * the URIs the project supports pass; the ext transport, command=, netcat=,
 * socket=, an ssh option as host and escapes are refused with one line.
 * And `run --backend libvirt --connect <ext URI> --dry-run` exits 2 before
 * printing anything. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "lvuri.h"
#include "sysinfo.h"

/* Local: no host; a remote transport to localhost is remote. */
static void test_lvuri_is_local(void **state)
{
	(void)state;
	assert_true(hb_lvuri_is_local("qemu:///system"));
	assert_true(hb_lvuri_is_local("qemu+unix:///session"));
	assert_false(hb_lvuri_is_local("qemu+ssh://root@localhost/system"));
	assert_false(hb_lvuri_is_local("qemu://host/system"));
	assert_false(hb_lvuri_is_local("qemu:/system"));
	assert_false(hb_lvuri_is_local(""));
	assert_false(hb_lvuri_is_local(NULL));
}

static void test_lvuri_accepts(void **state)
{
	static const char *const good[] = {
		"qemu:///system",
		"qemu:///session",
		"qemu+unix:///system",
		"qemu+ssh://lab1/system",
		"qemu+ssh://root@127.0.0.1:2222/system?keyfile=/tmp/hb-x/id&no_verify=1",
		"qemu+libssh2://u@h.example.org/system?known_hosts=/root/.ssh/kh&sshauth=privkey",
		"qemu+tcp://10.0.0.2:16509/system",
		"qemu+tls://[fe80::1]:16514/system?pkipath=/etc/pki/x",
		"qemu://host/system",
		/* issue 38: an address that starts with ':' was refused */
		"qemu+ssh://[::1]/system",
		"qemu+ssh://root@[::1]:22/system",
		"qemu+tcp://[::ffff:10.0.0.2]/system",
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(good); i++)
		if (hb_lvuri_check(good[i], err, sizeof(err)))
			fail_msg("refused %s: %s", good[i], err);
}

static void test_lvuri_refuses(void **state)
{
	static const struct {
		const char *uri, *why;
	} bad[] = {
		{ "", "empty" },
		{ "qemu+ext:///system?command=/bin/sh", "ext transport" },
		{ "qemu+ssh://h/system?command=/tmp/x", "command= runs" },
		{ "qemu+ssh://h/system?keyfile=k&command=/tmp/x", "command= runs" },
		{ "qemu+ssh://h/system?netcat=/tmp/evil-nc", "netcat=" },
		{ "qemu+ssh://h/system?proxy=netcat", "proxy=" },
		{ "qemu+unix:///system?socket=/tmp/other.sock", "socket=" },
		{ "qemu+ssh://h/system?%63ommand=x", "%" },
		{ "qemu+ssh://-oProxyCommand=id/system", "host" },
		{ "qemu+ssh://-oProxyCommand=id@h/system", "user" },
		{ "qemu+ssh://h/system?name=x", "not supported" },
		{ "qemu+ssh://h:22x/system", "port" },
		{ "qemu+ssh://h/", "/system or /session" },
		{ "qemu+ssh://h", "no /system" },
		{ "qemu:///embed?root=/tmp", "/system or /session" },
		{ "qemu+unix://h/system", "local transport has no host" },
		{ "qemu+ssh:///system", "remote transport needs a host" },
		{ "qemu+ssh://h/system?keyfile=a?b=c", "path or a word" },
		{ "qemu+foo:///system", "unknown transport" },
		{ "xen:///system", "only the qemu driver" },
		{ "lxc+ssh://h/system", "only the qemu driver" },
		{ "qemu:///system x", "blank" },
		{ "qemu+ssh://h/system?keyfile=$(id)", "one of" },
		{ "ssh-host", "no ://" },
		{ "qemu+ssh://[-oProxyCommand=id]/system", "host" },
		{ "qemu+ssh://[::1/system", "host" },
		{ "qemu+ssh://[:]/system", "host" },
		{ "qemu+ssh://[g::1]/system", "host" },
		{ "qemu+ssh://[::1]x/system", "host" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(bad); i++) {
		err[0] = 0;
		if (!hb_lvuri_check(bad[i].uri, err, sizeof(err)))
			fail_msg("accepted %s", bad[i].uri);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].uri, err, bad[i].why);
		assert_null(strchr(err, '\n'));
	}
}

/* Through the commands: `run` refuses before anything is prepared, and
 * `nightly --dry-run` refuses the matrix before it prints the plan. */
static void test_lvuri_commands(void **state)
{
	char *run[] = { (char *)hbt_in_root("build/hugebench"), "run", "--target", "debian-6.12",
			"--backend", "libvirt", "--connect", "qemu+ext:///system?command=/bin/sh",
			NULL };
	char *mx = hbt_write_tmp("m.matrix", "debian-6.12 connect=qemu+ssh://h/system?netcat=/tmp/x\n");
	char *night[] = { (char *)hbt_in_root("build/hugebench"), "nightly", "--matrix", mx,
			  "--dry-run", NULL };
	char *out = hbt_path("cmd.out"), *text;

	(void)state;
	assert_int_equal(hbt_run_to_end(run, out, true), 2);
	text = hb_slurp(out, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "--connect: the ext transport runs a local program"));
	free(text);
	assert_int_equal(hbt_run_to_end(night, out, true), 2);
	text = hb_slurp(out, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "connect=: netcat= chooses a program on the far side"));
	assert_null(strstr(text, "--backend libvirt")); /* no plan printed */
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lvuri_is_local),
		cmocka_unit_test(test_lvuri_accepts),
		cmocka_unit_test(test_lvuri_refuses),
		cmocka_unit_test(test_lvuri_commands),
	};

	if (hbt_tmpdir("lvuri"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, hbt_teardown);
}
