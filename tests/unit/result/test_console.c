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

/* The debug kernels' reports (issue 35), as 7.x prints them, between the
 * runner's workload lines: each issue names its report and the workload
 * announced last before it. */
static const char debug_text[] =
	"[    0.000000] Linux version 7.2.13-hb-minimal-7.2-debug\n"
	"[    1.000000] hugebench-guest: workload 1/3 fault rep 0\n"
	"[    2.000000] ==================================================================\n"
	"[    2.000001] BUG: KASAN: slab-use-after-free in xas_load+0x1d/0x1a0\n"
	"[    2.000002] Read of size 8 at addr ffff888003a1c0a8 by task hb-guest/77\n"
	"[    3.000000] hugebench-guest: workload 2/3 mthp rep 1\n"
	"[    3.100000] page: refcount:3 mapcount:0 mapping:ffff8880 index:0x0 pfn:0x10a00\n"
	"[    3.100001] page dumped because: VM_BUG_ON_FOLIO(!folio_test_locked(folio))\n"
	"[    3.100002] ------------[ cut here ]------------\n"
	"[    3.100003] kernel BUG at mm/filemap.c:1502!\n"
	"[    3.200000] ======================================================\n"
	"[    3.200001] WARNING: possible circular locking dependency detected\n"
	"[    3.300000] list_del corruption. prev->next should be ffff888004d2e3c8\n"
	"[    3.300001] WARNING: CPU: 1 PID: 80 at lib/list_debug.c:62 __list_del_entry_valid_or_report+0x9e/0xe0\n"
	"[    3.400000] BUG: Bad page state in process hb-guest  pfn:10a00\n"
	"[    3.500000] WARNING: suspicious RCU usage\n"
	"[    4.000000] hugebench-guest: workload 3/3 pressure rep 0\n"
	"[    5.000000] hugebench-guest: suite finished, powering off\n"
	"[    5.100000] WARNING: CPU: 0 PID: 1 at kernel/exit.c:900 do_exit+0x1/0x2\r\n";

static void test_console_debug_reports(void **state)
{
	static const struct {
		const char *kind, *workload, *report;
	} want[] = {
		{ "KASAN", "fault (1/3, rep 0)", "BUG: KASAN: slab-use-after-free in xas_load+0x1d/0x1a0" },
		{ "VM_BUG_ON", "mthp (2/3, rep 1)",
		  "page dumped because: VM_BUG_ON_FOLIO(!folio_test_locked(folio))" },
		{ "BUG", "mthp (2/3, rep 1)", "kernel BUG at mm/filemap.c:1502!" },
		{ "lockdep", "mthp (2/3, rep 1)", "WARNING: possible circular locking dependency detected" },
		{ "list-corruption", "mthp (2/3, rep 1)",
		  "list_del corruption. prev->next should be ffff888004d2e3c8" },
		{ "WARNING", "mthp (2/3, rep 1)", "WARNING: CPU: 1 PID: 80 at lib/list_debug.c:62 "
		  "__list_del_entry_valid_or_report+0x9e/0xe0" },
		{ "bad-page", "mthp (2/3, rep 1)", "Bad page state in process hb-guest  pfn:10a00" },
		{ "lockdep", "mthp (2/3, rep 1)", "WARNING: suspicious RCU usage" },
		{ "WARNING", "after the suite", "WARNING: CPU: 0 PID: 1 at kernel/exit.c:900 do_exit+0x1/0x2" },
	};
	struct hb_kissue is[16];
	struct hb_stream_info info = { .booted = true, .suite_end = true, .n_pass = 3 };
	char reason[512];
	size_t n = hb_console_scan(debug_text, is, 16);

	(void)state;
	assert_int_equal(n, HBT_N_OF(want));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(is[i].kind, want[i].kind);
		assert_string_equal(is[i].workload, want[i].workload);
		assert_string_equal(is[i].report, want[i].report);
	}
	/* the verdict names the first report and its workload */
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, is, n, reason, sizeof(reason)),
			    "kernel-warning");
	assert_non_null(strstr(reason, "KASAN during fault (1/3, rep 0) at line 4: BUG: KASAN: "
				       "slab-use-after-free in xas_load"));
	/* beside failed checks, the report is named too */
	info.n_fail = 1;
	assert_string_equal(hb_result_verdict(HB_END_NORMAL, &info, is, n, reason, sizeof(reason)),
			    "fail");
	assert_non_null(strstr(reason, "1 workload(s) failed a check; 9 kernel issue(s)"));
	assert_non_null(strstr(reason, "KASAN during fault"));
	/* before any workload line: boot; a workload line is never an issue */
	assert_int_equal(hb_console_scan("BUG: KASAN: wild-memory-access in x\n"
					 "hugebench-guest: workload 1/1 BUG: rep 0\n", is, 16), 1);
	assert_string_equal(is[0].workload, "boot");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_scan),
		cmocka_unit_test(test_console_late_panic),
		cmocka_unit_test(test_console_nul_before_panic),
		cmocka_unit_test(test_console_nul_in_line),
		cmocka_unit_test(test_console_long_line),
		cmocka_unit_test(test_console_debug_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
