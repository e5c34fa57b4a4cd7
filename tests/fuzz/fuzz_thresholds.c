/* fuzz_thresholds.c - libFuzzer target for compare-report's thresholds
 * file (hb_cmp_thresholds_load, harness/compare/cmp_thresholds.c) read
 * through the bounded reader (lib/userfile.c): the input is the file. An
 * error is one line and leaves no lines behind; accepted limits are in
 * [0, 100), else abort(). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_cmp_thresholds t;
	char err[1024] = "";
	FILE *f;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/hb-fuzz-thresholds-XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
		atexit(cleanup);
	}
	if (!(f = fopen(path, "wb")) || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (hb_cmp_thresholds_load(path, &t, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n') || t.n || t.lines)
			abort();
		return 0;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct hb_cmp_limits *l = &t.lines[i].lim;
		const double v[] = { l->min_effect_pct, l->min_effect_virtual_pct, l->boot_sd_pct };

		for (size_t k = 0; k < 3; k++)
			if (!isnan(v[k]) && !(v[k] >= 0 && v[k] < 100))
				abort();
	}
	hb_cmp_thresholds_free(&t);
	return 0;
}
