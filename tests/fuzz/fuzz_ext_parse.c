/* fuzz_ext_parse.c - libFuzzer target for the external tools' parsers
 * (lib/ext_parse.c): the same bytes go to the fio json+ parser (with its
 * length), and up to the first NUL to the stress-ng YAML and log readers and
 * the kselftest output parser. Checks the documented limits of what they
 * return (counts in range, names NUL-terminated and made of [A-Za-z0-9_.-],
 * statuses known), else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ext_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void name_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == 0 || n >= cap || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789_.-") != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hb_fio_result f;
	static struct hb_sng_result s;
	static struct hb_kst_result k;
	char *text = strndup((const char *)data, size), err[256] = "", first[128];
	double rate;
	long ok, bad;

	if (!text)
		return 0;
	if (hb_fio_parse((const char *)data, size, &f, err, sizeof(err)) == 0) {
		if (f.n_jobs < 1 || f.n_jobs > HB_FIO_MAX_JOBS)
			abort();
	} else if (!err[0]) {
		abort();
	}
	if (hb_sng_parse_yaml(text, &s, err, sizeof(err)) == 0 &&
	    (s.n < 0 || s.n > HB_SNG_MAX))
		abort();
	for (int i = 0; i < s.n; i++)
		if (s.s[i].n_extra < 0 || s.s[i].n_extra > HB_SNG_MAX_EXTRA)
			abort();
	if (hb_sng_count_fail(text, first, sizeof(first)) < 0)
		abort();
	for (int code = -1; code <= 4; code += 5) {
		hb_kst_parse(text, code, &k);
		if (k.n < 0 || k.n > HB_KST_MAX)
			abort();
		for (int i = 0; i < k.n; i++) {
			name_ok(k.c[i].name, sizeof(k.c[i].name));
			if (k.c[i].st != HB_KST_PASS && k.c[i].st != HB_KST_FAIL &&
			    k.c[i].st != HB_KST_SKIP)
				abort();
		}
		/* a run that printed nothing useful is never all passes */
		if (code != 0 && k.n == 0)
			abort();
	}
	if (hb_kst_thp_stress(text, &rate, &ok, &bad) < 0)
		abort();
	free(text);
	return 0;
}
