/* lv_api.h - libvirt, loaded when the libvirt backend is first used.
 *
 * hugebench links no libvirt: libvirt.so.0 and the 57 libraries it pulls in
 * cost every command about 8 ms to load and relocate (compare-report of two
 * 3-boot groups spends 90 ms in all; issue 34), and a machine without
 * libvirt0 can still run every other command. libvirt.c and lv_store.c
 * include this after <libvirt/libvirt.h>: each libvirt name they use is a
 * macro for a pointer of the table hb_lv_load() fills with dlsym(). The
 * prototypes stay libvirt's own (the pointers are declared with
 * __typeof__ of them), so a call with wrong arguments still fails to
 * compile. */
#ifndef HB_LV_API_H
#define HB_LV_API_H

#include <stdbool.h>
#include <stddef.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

/* Every libvirt function the backend calls; a name missing here fails to
 * link (nothing links -lvirt), so the list cannot fall behind. */
#define HB_LV_FUNCS(X)                                                                     \
	X(virConnectClose) X(virConnectDomainEventDeregisterAny)                          \
	X(virConnectDomainEventRegisterAny) X(virConnectGetDomainCapabilities)            \
	X(virConnectGetURI) X(virConnectGetVersion) X(virConnectIsAlive)                  \
	X(virConnectOpenAuth) X(virConnectRegisterCloseCallback)                          \
	X(virConnectSetKeepAlive) X(virConnectUnregisterCloseCallback)                    \
	X(virDomainCreateXML) X(virDomainDestroy) X(virDomainFree) X(virDomainIsActive)    \
	X(virDomainListGetStats) X(virDomainLookupByName) X(virDomainResume)              \
	X(virDomainStatsRecordListFree) X(virEventAddTimeout) X(virEventRegisterDefaultImpl) \
	X(virEventRemoveTimeout) X(virEventRunDefaultImpl) X(virGetLastErrorCode)         \
	X(virGetLastErrorMessage) X(virSetErrorFunc) X(virStoragePoolCreate)              \
	X(virStoragePoolCreateXML) X(virStoragePoolFree) X(virStoragePoolIsActive)        \
	X(virStoragePoolListAllVolumes) X(virStoragePoolLookupByName)                     \
	X(virStorageVolCreateXML) X(virStorageVolDelete) X(virStorageVolDownload)         \
	X(virStorageVolFree) X(virStorageVolGetName) X(virStorageVolGetPath)              \
	X(virStorageVolLookupByName) X(virStorageVolUpload) X(virStreamAbort)             \
	X(virStreamFinish) X(virStreamFree) X(virStreamNew) X(virStreamRecvAll)           \
	X(virStreamSendAll)

#define HB_LV_PTR(f) __typeof__(f) *f;
struct hb_lv_api {
	HB_LV_FUNCS(HB_LV_PTR)
	__typeof__(virConnectAuthPtrDefault) *virConnectAuthPtrDefault;
};
#undef HB_LV_PTR

/* Loads libvirt.so.0 once; false with one line in err (what to install)
 * when it or one of its functions is missing. Thread-safe. */
bool hb_lv_load(char *err, size_t errlen);
/* The table; loads it first, and ends the process with that line if
 * loading fails (only reached after hb_lv_load() said true: every use of
 * libvirt starts with hb_lv_connect() or hb_lv_event_loop()). */
const struct hb_lv_api *hb_lv_api(void);

#ifndef HB_LV_API_IMPL
#define HB_LV_USE(f) (hb_lv_api()->f)
#define virConnectClose HB_LV_USE(virConnectClose)
#define virConnectDomainEventDeregisterAny HB_LV_USE(virConnectDomainEventDeregisterAny)
#define virConnectDomainEventRegisterAny HB_LV_USE(virConnectDomainEventRegisterAny)
#define virConnectGetDomainCapabilities HB_LV_USE(virConnectGetDomainCapabilities)
#define virConnectGetURI HB_LV_USE(virConnectGetURI)
#define virConnectGetVersion HB_LV_USE(virConnectGetVersion)
#define virConnectIsAlive HB_LV_USE(virConnectIsAlive)
#define virConnectOpenAuth HB_LV_USE(virConnectOpenAuth)
#define virConnectRegisterCloseCallback HB_LV_USE(virConnectRegisterCloseCallback)
#define virConnectSetKeepAlive HB_LV_USE(virConnectSetKeepAlive)
#define virConnectUnregisterCloseCallback HB_LV_USE(virConnectUnregisterCloseCallback)
#define virDomainCreateXML HB_LV_USE(virDomainCreateXML)
#define virDomainDestroy HB_LV_USE(virDomainDestroy)
#define virDomainFree HB_LV_USE(virDomainFree)
#define virDomainIsActive HB_LV_USE(virDomainIsActive)
#define virDomainListGetStats HB_LV_USE(virDomainListGetStats)
#define virDomainLookupByName HB_LV_USE(virDomainLookupByName)
#define virDomainResume HB_LV_USE(virDomainResume)
#define virDomainStatsRecordListFree HB_LV_USE(virDomainStatsRecordListFree)
#define virEventAddTimeout HB_LV_USE(virEventAddTimeout)
#define virEventRegisterDefaultImpl HB_LV_USE(virEventRegisterDefaultImpl)
#define virEventRemoveTimeout HB_LV_USE(virEventRemoveTimeout)
#define virEventRunDefaultImpl HB_LV_USE(virEventRunDefaultImpl)
#define virGetLastErrorCode HB_LV_USE(virGetLastErrorCode)
#define virGetLastErrorMessage HB_LV_USE(virGetLastErrorMessage)
#define virSetErrorFunc HB_LV_USE(virSetErrorFunc)
#define virStoragePoolCreate HB_LV_USE(virStoragePoolCreate)
#define virStoragePoolCreateXML HB_LV_USE(virStoragePoolCreateXML)
#define virStoragePoolFree HB_LV_USE(virStoragePoolFree)
#define virStoragePoolIsActive HB_LV_USE(virStoragePoolIsActive)
#define virStoragePoolListAllVolumes HB_LV_USE(virStoragePoolListAllVolumes)
#define virStoragePoolLookupByName HB_LV_USE(virStoragePoolLookupByName)
#define virStorageVolCreateXML HB_LV_USE(virStorageVolCreateXML)
#define virStorageVolDelete HB_LV_USE(virStorageVolDelete)
#define virStorageVolDownload HB_LV_USE(virStorageVolDownload)
#define virStorageVolFree HB_LV_USE(virStorageVolFree)
#define virStorageVolGetName HB_LV_USE(virStorageVolGetName)
#define virStorageVolGetPath HB_LV_USE(virStorageVolGetPath)
#define virStorageVolLookupByName HB_LV_USE(virStorageVolLookupByName)
#define virStorageVolUpload HB_LV_USE(virStorageVolUpload)
#define virStreamAbort HB_LV_USE(virStreamAbort)
#define virStreamFinish HB_LV_USE(virStreamFinish)
#define virStreamFree HB_LV_USE(virStreamFree)
#define virStreamNew HB_LV_USE(virStreamNew)
#define virStreamRecvAll HB_LV_USE(virStreamRecvAll)
#define virStreamSendAll HB_LV_USE(virStreamSendAll)
#define virConnectAuthPtrDefault (*hb_lv_api()->virConnectAuthPtrDefault)
#endif

#endif
