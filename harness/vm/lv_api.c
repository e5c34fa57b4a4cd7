/* lv_api.c - libvirt loaded on first use (lv_api.h says why). */
#define _GNU_SOURCE
#define HB_LV_API_IMPL
#include "lv_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct hb_lv_api api;
static char why[256];
static bool loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libvirt.so.0", RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!h) {
		snprintf(why, sizeof(why),
			 "libvirt is not installed (%s): apt-get install libvirt0, or use "
			 "--backend qemu", dlerror());
		return;
	}
#define HB_LV_SYM(f)                                          \
	if (!missing && !(*(void **)&api.f = dlsym(h, #f))) \
		missing = #f;
	HB_LV_FUNCS(HB_LV_SYM)
#undef HB_LV_SYM
	if (!missing && !(*(void **)&api.virConnectAuthPtrDefault =
				  dlsym(h, "virConnectAuthPtrDefault")))
		missing = "virConnectAuthPtrDefault";
	if (missing) {
		snprintf(why, sizeof(why),
			 "the installed libvirt has no %s (too old?): upgrade libvirt0, or use "
			 "--backend qemu", missing);
		return;
	}
	loaded = true;
}

bool hb_lv_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!loaded && err && errlen)
		snprintf(err, errlen, "%s", why);
	return loaded;
}

const struct hb_lv_api *hb_lv_api(void)
{
	if (!hb_lv_load(NULL, 0)) {
		fprintf(stderr, "hugebench: %s\n", why);
		exit(2);
	}
	return &api;
}
