/* qmp.c - minimal QMP client (see qmp.h). One JSON object per line, as QEMU
 * sends them; every read waits at most 5 s. */
#define _GNU_SOURCE
#include "qmp.h"

#include <errno.h>
#include <stdlib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define QMP_TIMEOUT_MS 5000

/* Reads one line (up to '\n') into buf; 0 or -1 on timeout/EOF. */
static int read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, QMP_TIMEOUT_MS) <= 0)
			return -1;
		r = read(fd, buf + n, 1);
		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
	return 0;
}

static int send_json(int fd, json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT);
	size_t len, off = 0;

	json_decref(obj);
	if (!s)
		return -1;
	len = strlen(s);
	while (off < len) {
		/* MSG_NOSIGNAL: QEMU closing the socket (after quit) must be an
		 * error here, not a SIGPIPE that kills hugebench */
		ssize_t w = send(fd, s + off, len - off, MSG_NOSIGNAL);

		if (w <= 0) {
			free(s);
			return -1;
		}
		off += (size_t)w;
	}
	free(s);
	return send(fd, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

json_t *hb_qmp_execute(int fd, const char *cmd, json_t *args, char *err, size_t errlen)
{
	static char line[1 << 20];
	json_t *req = json_pack("{s:s}", "execute", cmd);

	if (args)
		json_object_set_new(req, "arguments", args);
	if (send_json(fd, req)) {
		snprintf(err, errlen, "QMP: cannot send %s: %s", cmd, strerror(errno));
		return NULL;
	}
	for (;;) {
		json_t *rep, *ret;

		if (read_line(fd, line, sizeof(line))) {
			snprintf(err, errlen, "QMP: no reply to %s within %d ms", cmd, QMP_TIMEOUT_MS);
			return NULL;
		}
		rep = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
		if (json_object_get(rep, "event")) {
			json_decref(rep);
			continue;
		}
		ret = json_object_get(rep, "return");
		if (ret) {
			json_incref(ret);
			json_decref(rep);
			return ret;
		}
		snprintf(err, errlen, "QMP: %s failed: %s", cmd,
			 json_string_value(json_object_get(json_object_get(rep, "error"), "desc"))
				 ?: line);
		json_decref(rep);
		return NULL;
	}
}

int hb_qmp_event_seen(int fd, const char *name)
{
	char line[8192];
	int seen = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		json_t *ev;

		if (poll(&p, 1, 0) <= 0 || read_line(fd, line, sizeof(line)))
			return seen;
		ev = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
		if (strcmp(json_string_value(json_object_get(ev, "event")) ?: "", name) == 0)
			seen = 1;
		json_decref(ev);
	}
}

int hb_qmp_connect(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char greeting[4096];
	json_t *r;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "QMP socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, errlen, "QMP: cannot connect to %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (read_line(fd, greeting, sizeof(greeting)) || !strstr(greeting, "\"QMP\"")) {
		snprintf(err, errlen, "QMP: no greeting on %s", path);
		close(fd);
		return -1;
	}
	r = hb_qmp_execute(fd, "qmp_capabilities", NULL, err, errlen);
	if (!r) {
		close(fd);
		return -1;
	}
	json_decref(r);
	return fd;
}

json_t *hb_qmp_kvm_stats(json_t *ret)
{
	json_t *out = json_object();
	size_t i, j;
	json_t *res, *st;

	/* [{"provider": "kvm", "qom-path"?: ..., "stats": [{"name", "value"}]}] */
	json_array_foreach(ret, i, res) {
		if (strcmp(json_string_value(json_object_get(res, "provider")) ?: "", "kvm"))
			continue;
		json_array_foreach(json_object_get(res, "stats"), j, st) {
			const char *name = json_string_value(json_object_get(st, "name"));
			json_t *v = json_object_get(st, "value");

			if (name && (json_is_integer(v) || json_is_real(v) || json_is_boolean(v)))
				json_object_set(out, name, v);
		}
	}
	return out;
}
