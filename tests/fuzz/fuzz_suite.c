/* fuzz_suite.c - libFuzzer target for the suite parser (hb_suite_parse,
 * shared by the host and the guest runner): the input is a suite file (up
 * to its first NUL, as the parser takes a C string). Checks the entries it
 * returns against the documented limits, else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hb_suite_entry e[64];
	char *text = strndup((const char *)data, size), err[256] = "";
	int n;

	if (!text)
		return 0;
	n = hb_suite_parse(text, e, 64, err, sizeof(err));
	if (n < -1 || n > 64 || (n < 0 && !err[0]))
		abort();
	for (int i = 0; i < n; i++) {
		if (!e[i].name[0] || strpbrk(e[i].name, " \t\r\n#") || e[i].repeat < 1 ||
		    e[i].repeat > HB_MAX_REPEAT || e[i].n_params < 0 || e[i].n_params > HB_MAX_PARAMS)
			abort();
		for (int k = 0; k < e[i].n_params; k++)
			if (!e[i].params[k].key[0] || strchr(e[i].params[k].key, '='))
				abort();
	}
	free(text);
	return 0;
}
