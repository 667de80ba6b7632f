/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "../model/facts.h"

/*
 * The pure halves of the sysfs/procfs collectors: bytes in, facts out, no
 * file access. The collectors read, these parse; the fuzz targets
 * (tests/fuzz/) call them directly. Every value is hostile input: a parser
 * that cannot prove a value sets the fact unreadable or invalid, never OK.
 */

/* Size of a complete PCIe config space: only all of it proves an absence. */
#define PCI_CFG_SIZE 4096

/*
 * The ACS capability and control words from @len bytes of a PCI config
 * dump. UNSUPPORTED only when all 4096 bytes were read and the extended
 * capability list ends without ACS; any shorter dump without ACS is
 * UNREADABLE (ENODATA), a looping or out-of-range list INVALID.
 */
void pci_cfg_parse_acs(const uint8_t *cfg, size_t len, struct pci_acs *a);

/*
 * NVIDIA's BAR1 (the framebuffer aperture) is the GPU's second memory BAR.
 * sysfs lists a 64-bit BAR at its lower register index and leaves the next
 * line zero, so BAR1 is resource line 1 when BAR0 is 32-bit and line 2 when
 * BAR0 is 64-bit (seen on an H200: 16 MiB, 256 GiB, 32 MiB at lines 0, 2, 4).
 * Take the second non-empty line among the six BAR lines of @buf (the text
 * of a sysfs "resource" file, modified in place); 0 when all six lines are
 * there and BAR1 is not.
 */
void pci_parse_bar1(char *buf, struct fact_int *f);

/*
 * The leading integer of an InfiniBand port "rate" ("400 Gb/sec (4X NDR)",
 * "2.5 Gb/sec (1X SDR)" → 2): -EINVAL without one, -ERANGE beyond
 * PORT_RATE_MAX_GBPS (a value no link has, so no value at all).
 */
#define PORT_RATE_MAX_GBPS 100000
int parse_port_rate(const char *s, int64_t *ret_gbps);

/*
 * Whether /proc/kallsyms exports ib_register_peer_memory_client (the
 * PeerDirect API nvidia-peermem links against), and from which module:
 * "ffffffffc0a1b2c0 T ib_register_peer_memory_client\t[ib_core]". Non-root
 * readers see zero addresses but the names, which is all this needs. A
 * distribution kernel has a few hundred thousand symbols, about 15 MB; a
 * stream longer than the caps below is not a symbol table (a sparse file, a
 * device) and reads as unreadable (EFBIG), never as "not exported".
 */
#define KALLSYMS_MAX_LINES (8u << 20)
#define KALLSYMS_MAX_BYTES (64u << 20)
void kallsyms_scan(FILE *fp, struct host_facts *h);

/*
 * "Model: \t NVIDIA H100 80GB HBM3" and "Device Minor: 0" lines of
 * /proc/driver/nvidia/gpus/<bdf>/information (@buf, modified in place).
 */
void nvidia_parse_information(char *buf, struct gpu *g);

/*
 * A PCI function's uevent file, the kernel's own summary of it
 * (drivers/pci/pci-driver.c pci_uevent: PCI_CLASS=%04X, PCI_ID=%04X:%04X,
 * PCI_SUBSYS_ID=%04X:%04X; drivers/base/core.c dev_uevent: DRIVER=<name>
 * only while a driver is bound). One read gives what five files and the
 * driver link give. @buf is modified in place. Each field it proves is set
 * OK in @p; one it lacks or cannot prove stays UNSET, for the collector to
 * read from its own file. Returns true when @buf is a PCI uevent (a valid
 * PCI_ID); only then does a missing DRIVER line mean "no driver bound"
 * (@p->driver ABSENT).
 */
bool pci_parse_uevent(char *buf, struct pci_dev *p);

/*
 * /proc/net/route (net/ipv4/fib_trie.c fib_route_seq_show: "Iface
 * Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT", the
 * addresses as the kernel's __be32 printed "%08X", so in this machine's
 * order). *ret_default: the device of the first default route (destination
 * and mask 0, RTF_UP), NULL without one. *ret_routes: every route that is
 * up with a contiguous mask, "10.10.0.0/24", and its gateway where it has
 * one (RTF_GATEWAY). Lines that do not parse are skipped. 0 or -ENOMEM.
 */
struct cni_route;
int parse_proc_net_route(const char *text, char **ret_default, struct cni_route **ret_routes,
			 size_t *ret_n);

/*
 * /proc/self/mountinfo (proc(5): "36 35 98:0 /mnt1 /mnt2 rw,noatime ..."):
 * the mount points, octal escapes undone, of the mounts that are at or
 * below @dir or hold it, whose per-mount options (field 6) are not "ro".
 * *ret is NULL-terminated (free with strv_free), NULL when there is none.
 * 0 or -ENOMEM; lines that do not parse are skipped.
 */
int parse_mountinfo_writable(const char *text, const char *dir, char ***ret);

/* KEY="value" lines of os-release(5) (collect-host.c). */
void parse_os_release(const char *buf, struct host_facts *h);
/* The "hypervisor" flag of /proc/cpuinfo's first flags line (@cpu is cut into lines). */
void parse_cpuinfo_hypervisor(char *cpu, struct fact_int *hv);
