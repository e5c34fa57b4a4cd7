/* fuzz_console.c - libFuzzer target for the console scanner
 * (hb_console_scan_n): the input is console.log's bytes. Checks that every
 * issue found has a kind, a line inside the text and an excerpt that
 * result.json can hold (hb_result_issues_json dumps as JSON), else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hb_kissue is[16];
	const char *s = (const char *)data;
	size_t found = hb_console_scan_n(s, size, is, 16), n = found < 16 ? found : 16;
	size_t lines = 1; /* lines begun: newlines + 1 */
	struct hb_stream_info info = { .booted = true, .suite_end = true };
	char reason[512], *text;
	json_t *a;

	for (size_t i = 0; i < size; i++)
		lines += s[i] == '\n';
	for (size_t i = 0; i < n; i++) {
		if (!is[i].kind[0] || is[i].line < 1 || (size_t)is[i].line > lines ||
		    strlen(is[i].excerpt) >= sizeof(is[i].excerpt))
			abort();
	}
	if (found && !size)
		abort();
	a = hb_result_issues_json(is, n);
	text = json_dumps(a, 0);
	if (!text)
		abort();
	free(text);
	json_decref(a);
	if (hb_console_has_panic(is, n) !=
	    !strcmp(hb_result_verdict(HB_END_NORMAL, &info, is, n, reason, sizeof(reason)), "panic"))
		abort();
	return 0;
}
