/* fuzz_matrix.c - libFuzzer target for the nightly matrix parser
 * (hb_matrix_parse, harness/nightly/matrix.c): the input is a matrix file
 * (up to its first NUL). An error must be one line; every row it returns
 * must respect the documented limits (a connect= URI passes hb_lvuri_check),
 * else abort(). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lvuri.h"
#include "nightly.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), err[1024] = "";
	struct hb_matrix m;

	if (!text)
		return 0;
	if (hb_matrix_parse(text, "fuzz", &m, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n') || m.rows || m.n)
			abort();
	} else {
		if (!m.n)
			abort();
		for (size_t i = 0; i < m.n; i++) {
			const struct hb_mrow *r = &m.rows[i];

			if (!r->target[0] || strpbrk(r->target, " \t\r\n#=") || r->boots < 1 ||
			    r->boots > 200 || r->timeout_s < 0 || r->timeout_s > 7 * 86400 ||
			    !strcmp(r->target, r->base) || strpbrk(r->connect, " \t\r\n'\"\\"))
				abort();
			/* connect= passed the --connect check (issue 23) */
			if (r->connect[0] && hb_lvuri_check(r->connect, err, sizeof(err)))
				abort();
			for (size_t k = 0; k < i; k++)
				if (!strcmp(m.rows[k].target, r->target))
					abort();
		}
		hb_matrix_free(&m);
	}
	free(text);
	return 0;
}
