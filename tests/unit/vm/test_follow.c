/* test_follow.c - the live stream follower (harness/vm/follow.c) handles
 * lines by length: a NUL byte, raw or escaped, inside a line does not hide
 * the lines after it, so suite_end is still seen (before issue 23 the
 * follower used strchr and the stall watchdog killed a healthy guest). */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "follow.h"

static void follow_bytes(struct hb_follower *f, const char *p, size_t n)
{
	int fd = memfd_create("stream", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->quiet = true;
	hb_follow(f);
	close(fd);
}

static void test_follow_nul_then_suite_end(void **state)
{
	static const char raw[] = "{\"ev\":\"suite_start\",\"runs\":1}\n"
				  "{\"ev\":\"note\",\"text\":\"a\0b\"}\n"
				  "{\"ev\":\"suite_end\"}\n";
	static const char esc[] = "{\"ev\":\"suite_start\",\"runs\":1}\n"
				  "{\"ev\":\"note\",\"text\":\"a\\u0000b\"}\n"
				  "{\"ev\":\"suite_end\"}\n";
	struct hb_follower *f = malloc(sizeof(*f));

	(void)state;
	assert_non_null(f);
	follow_bytes(f, HBT_LIT(raw));
	assert_true(f->seen_first);
	assert_true(f->suite_end);
	follow_bytes(f, HBT_LIT(esc));
	assert_true(f->suite_end);
	free(f);
}

/* A line split over two reads and a key twice: only whole lines count, and
 * {"ev":"note","ev":"suite_end"} is not a suite_end. */
static void test_follow_partial_and_duplicate(void **state)
{
	static const char dup[] = "{\"ev\":\"note\",\"ev\":\"suite_end\"}\n{\"ev\":\"suite_e";
	struct hb_follower *f = malloc(sizeof(*f));
	int fds[2];

	(void)state;
	assert_non_null(f);
	follow_bytes(f, HBT_LIT(dup));
	assert_false(f->suite_end);
	memset(f, 0, sizeof(*f));
	f->quiet = true;
	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	f->fd = fds[0];
	assert_int_equal(write(fds[1], "{\"ev\":\"suite_", 13), 13);
	hb_follow(f);
	assert_false(f->suite_end);
	assert_int_equal(write(fds[1], "end\"}\n", 6), 6);
	hb_follow(f);
	assert_true(f->suite_end);
	close(fds[0]);
	close(fds[1]);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_nul_then_suite_end),
		cmocka_unit_test(test_follow_partial_and_duplicate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
