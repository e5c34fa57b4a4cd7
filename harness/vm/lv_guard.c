/* lv_guard.c - see lv_guard.h. The guard is a thread that waits for its
 * limit; when it passes, it shuts down every socket this process holds.
 * In a libvirt-backend boot those are libvirt's connections only (the
 * unix socket of qemu:///system, the socketpair to the ssh of
 * qemu+ssh://; console and stream go to regular files, and boots of
 * --jobs > 1 are processes of their own): libvirt's poll then sees the
 * hang-up, the connection closes and the blocked call returns an error,
 * which the run loop records as a lost connection. shutdown() from
 * another thread is safe; close() would not be (the fd number could be
 * reused under libvirt). */
#define _GNU_SOURCE
#include "lv_guard.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

static void cut_sockets(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		struct stat st;

		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		if (fstat((int)fd, &st) == 0 && S_ISSOCK(st.st_mode))
			shutdown((int)fd, SHUT_RDWR);
	}
	if (d)
		closedir(d);
}

static void *guard_main(void *arg)
{
	struct hb_lv_guard *g = arg;

	pthread_mutex_lock(&g->mu);
	while (!g->quit) {
		struct timespec ts;
		double now = hb_mono_s();

		if (g->pending && now >= g->limit) {
			g->pending = false;
			g->fired = true;
			snprintf(g->fired_what, sizeof(g->fired_what), "%s",
				 g->what ? g->what : "a libvirt call");
			cut_sockets();
			continue;
		}
		/* wake up once a second: arm() moves the limit without a signal */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int hb_lv_guard_start(struct hb_lv_guard *g)
{
	int rc;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	rc = pthread_create(&g->thread, NULL, guard_main, g);
	if (rc) {
		errno = rc;
		return -1;
	}
	g->started = true;
	return 0;
}

void hb_lv_guard_arm(struct hb_lv_guard *g, double seconds, const char *what)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->mu);
	g->limit = hb_mono_s() + seconds;
	g->what = what;
	g->pending = true;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

bool hb_lv_guard_fired(struct hb_lv_guard *g, char *what, size_t len)
{
	bool fired;

	if (!g->started)
		return false;
	pthread_mutex_lock(&g->mu);
	fired = g->fired;
	if (fired && what)
		snprintf(what, len, "%s", g->fired_what);
	pthread_mutex_unlock(&g->mu);
	return fired;
}

void hb_lv_guard_stop(struct hb_lv_guard *g)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->mu);
	g->quit = true;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	g->started = false;
}
