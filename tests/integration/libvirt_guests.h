/* libvirt_guests.h - integration tests of the libvirt backend (issue 13;
 * libvirt_guests.c). */
#ifndef HB_LIBVIRT_GUESTS_H
#define HB_LIBVIRT_GUESTS_H

void test_libvirt_quick_local(void **state);
void test_libvirt_quick_ssh(void **state);
void test_libvirt_interrupt_local(void **state);
void test_libvirt_interrupt_ssh(void **state);
void test_libvirt_timeout(void **state);
void test_libvirt_stall(void **state);
void test_libvirt_reader_stall(void **state);
void test_libvirt_nightly_two_connections(void **state);
void test_libvirt_reboot(void **state);
void test_libvirt_two_hosts(void **state);
void test_libvirt_down(void **state);
void test_libvirt_guest_ram_memfd(void **state);
void test_libvirt_frozen_daemon(void **state);

#endif
