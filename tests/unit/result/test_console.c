/* test_console.c - the console scanner (harness/result/console.c): kernel
 * issues (WARNING, BUG, Oops, lockups, hung tasks, panic) found line by
 * line in what the guest printed, and hostile bytes from a guest (issue 9):
 * NUL bytes, a line that never ends, more issues than the caller keeps. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "result.h"

static const char console_text[] =
	"[    0.000000] Linux version 6.12.117\n"
	"[    1.000000] PCI: Using host bridge windows from ACPI; please report a bug\n"
	"[    5.100000] ------------[ cut here ]------------\n"
	"[    5.100001] WARNING: CPU: 0 PID: 1 at mm/shmem.c:123 shmem_fault+0x1/0x2\n"
	"[    5.100002] Modules linked in: zram\n"
	"[    6.000000] kworker: page allocation failure: order:9, mode:0x140dca\n"
	"[    7.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
	"[    7.000001] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
	"[    8.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [a:1]\n"
	"[    9.000000] INFO: task khugepaged:40 blocked for more than 120 seconds.\n"
	"[   10.000000] Kernel panic - not syncing: Fatal exception\n";

static void test_console_scan(void **state)
{
	static const char *const kinds[] = { "WARNING", "page-allocation-failure", "BUG", "Oops",
					     "soft-lockup", "hung-task", "panic" };
	struct hb_kissue is[16];
	size_t n = hb_console_scan(console_text, is, 16);

	(void)state;
	/* "please report a bug" is not a BUG: line */
	assert_int_equal(n, HBT_N_OF(kinds));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(is[i].kind, kinds[i]);
	assert_int_equal(is[0].line, 4);
	assert_non_null(strstr(is[0].excerpt, "Modules linked in"));
	assert_true(hb_console_has_panic(is, n));
	assert_int_equal(hb_console_scan(console_text, is, 2), 7); /* counted, not stored */
	assert_int_equal(hb_console_scan("clean boot\nreboot: Restarting system\n", is, 16), 0);
}

/* A panic after more issues than the caller keeps is still kept (it was
 * dropped: a late panic read as kernel-warning, or incomplete). */
static void test_console_late_panic(void **state)
{
	static struct hb_kissue is[64];
	char *text = malloc(100 * 40 + 64);
	size_t off = 0, n;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 100; i++)
		off += (size_t)sprintf(text + off, "WARNING: CPU: 0 PID: %d at x\n", i);
	off += (size_t)sprintf(text + off, "Kernel panic - not syncing: late\n");
	n = hb_console_scan_n(text, off, is, 64);
	assert_int_equal(n, 101);
	assert_true(hb_console_has_panic(is, 64));
	free(text);
}

static void test_console_nul_before_panic(void **state)
{
	static const char con[] = "[    0.0] Linux version 6.1\n"
				  "[    1.0] serial\0garbage\n"
				  "[    5.0] Kernel panic - not syncing: Fatal exception\n";
	struct hb_kissue is[4];
	char reason[256];
	struct hb_stream_info info = { .booted = true, .suite_end = true, .n_pass = 1 };
	size_t n = hb_console_scan_n(HBT_LIT(con), is, 4);

	(void)state;
	assert_int_equal(n, 1);
	assert_string_equal(is[0].kind, "panic");
	assert_int_equal(is[0].line, 3);
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, is, n, reason, sizeof(reason)),
			    "panic");
}

static void test_console_nul_in_line(void **state)
{
	static const char con[] = "boot\n\0\0\0[ 5.0] Kernel panic - not syncing: x\nafter\n";
	static const char warn[] = "boot\n\0\n[ 5.1] WARNING: CPU: 0 PID: 1 at mm/shmem.c:1\n";
	struct hb_kissue is[4];

	(void)state;
	assert_int_equal(hb_console_scan_n(HBT_LIT(con), is, 4), 1);
	assert_string_equal(is[0].kind, "panic");
	assert_int_equal(is[0].line, 2);
	/* the excerpt stays one string: the NULs are shown, not an end */
	assert_non_null(strstr(is[0].excerpt, "???[ 5.0] Kernel panic"));
	assert_non_null(strstr(is[0].excerpt, "after"));
	assert_int_equal(hb_console_scan_n(HBT_LIT(warn), is, 4), 1);
	assert_string_equal(is[0].kind, "WARNING");
	assert_int_equal(hb_console_scan_n(NULL, 0, is, 4), 0);
	assert_int_equal(hb_console_scan_n(HBT_LIT(""), is, 4), 0);
}

/* A line that never ended: the panic is 3000 bytes in. The old scanner
 * looked only at the first 1023 bytes of a line. */
static void test_console_long_line(void **state)
{
	size_t len = 3000 + 64;
	char *con = malloc(len + 1);
	struct hb_kissue is[2];

	(void)state;
	memset(con, 'x', 3000);
	snprintf(con + 3000, 65, "Kernel panic - not syncing: Fatal exception");
	assert_int_equal(hb_console_scan(con, is, 2), 1);
	assert_string_equal(is[0].kind, "panic");
	/* the excerpt holds the match, not only the 'x's before it */
	assert_non_null(strstr(is[0].excerpt, "Kernel panic"));
	free(con);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_scan),
		cmocka_unit_test(test_console_late_panic),
		cmocka_unit_test(test_console_nul_before_panic),
		cmocka_unit_test(test_console_nul_in_line),
		cmocka_unit_test(test_console_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
