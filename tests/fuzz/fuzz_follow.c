/* fuzz_follow.c - libFuzzer target for the live stream follower
 * (harness/vm/follow.c): any bytes, NULs and overlong lines included, read
 * through a memfd as QEMU's chardev file would be. Besides crashes it checks
 * that a suite_end line appended after the input is always seen. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "follow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char end[] = "\n{\"ev\":\"suite_end\"}\n";
	static struct hb_follower f;
	int fd = memfd_create("stream", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size ||
	    write(fd, end, sizeof(end) - 1) != (ssize_t)(sizeof(end) - 1) || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return 0;
	}
	memset(&f, 0, sizeof(f));
	f.fd = fd;
	f.quiet = true;
	hb_follow(&f);
	close(fd);
	/* the final line fits the buffer whatever came before it */
	if (!f.suite_end) {
		fprintf(stderr, "suite_end after %zu bytes was not seen\n", size);
		abort();
	}
	return 0;
}
