/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/checks.h"
#include "../checks/node-summary.h"

/*
 * gdrcheck fleet: many nodes judged together. Each node is analysed alone,
 * exactly as `check` does (topology, checks, node summary); fleet_read()
 * keeps of it what the comparison needs: its gates and first blocker, the
 * value of every key that must agree across GPU nodes of one kind with the
 * fix its own checks give for it, the RDMA endpoints it offers and the NICs
 * NCCL would use. fleet_add() stores that compactly (strings interned), so
 * a fleet is read one node at a time; fleet_finish() then compares: drift
 * per key and kind, reachability between nodes, and the bw test plan.
 * Pure: nothing here reads a machine or prints.
 */

/* The keys compared across GPU nodes of one kind (docs/fleet.md). */
enum fleet_key {
	FLEET_KEY_OS = 0,
	FLEET_KEY_KERNEL,
	FLEET_KEY_DRIVER,
	FLEET_KEY_DRIVER_SOURCE,
	FLEET_KEY_CUDA,
	FLEET_KEY_ICE,
	FLEET_KEY_IRDMA,
	FLEET_KEY_NVM,
	FLEET_KEY_DDP,
	FLEET_KEY_QOS,
	FLEET_KEY_MTU,
	FLEET_KEY_GID,
	FLEET_KEY_NCCL,
	FLEET_KEY_IOMMU,
	FLEET_KEY_ACS,
	FLEET_KEY_GPUS,
	FLEET_KEY_NICS,
	FLEET_KEY_LAYOUT,
	FLEET_KEY_SUBNETS,
	FLEET_N_KEYS,
};

struct fleet_key_info {
	const char *name; /* JSON key and Prometheus label: "kernel" */
	const char *title; /* "kernel release" */
	/* The checks that judge the key on a node: their fix is its fix. */
	const char *const *checks;
	/*
	 * The drift fix when no check on either side judges the difference;
	 * "%s" in it stands for the majority's value (fleet_align_text).
	 */
	const char *align;
	bool gpu_only; /* not compared among GPU-less peers */
	bool hashed; /* long: the Prometheus label carries a short hash */
};

const struct fleet_key_info *fleet_key_info(enum fleet_key k);
/* Key @k's align text with the majority's @value in it. */
void fleet_align_text(enum fleet_key k, const char *value, char *buf, size_t size);

/* ------------------------------------------------------------ one node */

/* One RDMA port a node offers to the others. */
struct fleet_end {
	char *nic; /* RDMA device */
	unsigned port;
	bool ib; /* InfiniBand (LID, subnet prefix), else RoCE */
	bool nccl; /* a NIC NCCL would use (some GPU's route) */
	char *netdev; /* RoCE: the link holding its address, NULL unknown */
	int64_t gid_index; /* the GID NCCL picks (RoCE), -1 none */
	char *gid_type; /* "RoCE v2", NULL unknown */
	int family; /* AF_INET, AF_INET6 (RoCE); 0 no address */
	uint8_t addr[16]; /* RoCE: the GID's IPv4 address in [0..3] (AF_INET) */
	int prefix; /* its prefix length, -1 unknown */
	uint64_t ib_prefix; /* IB: the subnet prefix (GID 0's upper half), 0 unknown */
	int64_t lid; /* IB: -1 unknown */
	int64_t mtu; /* RoCE: netdev MTU of the address's link, -1 unknown */
	char *pair_qos; /* trust, DSCP map, PFC of its physical ports, NULL unknown */
};

/* A NIC NCCL would use on a GPU node, and the GPU its route starts from. */
struct fleet_rail {
	char *nic;
	unsigned port;
	int gpu; /* GPU index (topo order) */
	char *gpu_bdf;
	int64_t gid_index; /* NCCL's GID on it, -1 not RoCE or none */
};

/* What fleet_read() keeps of one node (every string owned). */
struct fleet_reading {
	char *name; /* the node's name (Kubernetes node name when known) */
	char *input; /* where it was read from */
	char *kind; /* the GPU model; NULL: a GPU-less peer */
	size_t n_gpus;
	enum check_status gate[3]; /* gates 1, 2, 3 as check gives them */
	char *blocker; /* the first blocker that counts, "id status: verdict" */
	size_t n_blockers;
	char *value[FLEET_N_KEYS]; /* NULL: unknown, or does not apply */
	enum check_status status[FLEET_N_KEYS]; /* worst of the key's checks */
	char *fix[FLEET_N_KEYS]; /* the node's own fix plan's steps for it */
	char *fix_check[FLEET_N_KEYS]; /* the ids of the checks they resolve */
	struct fleet_end *ends;
	size_t n_ends;
	struct fleet_rail *rails;
	size_t n_rails;
	char *resource; /* the RDMA resource a pod on it requests */
	char *network; /* the secondary network its pods name, NULL none */
	bool host_network; /* pods use the host's network (hostNetwork mode) */
};

/*
 * Read one analysed node (@ctx holds its facts and topology, @rep and @sum
 * are check's report and summary). @name: the node's name when the input
 * knows it (a pod's spec.nodeName), else NULL for the hostname. 0 or -ENOMEM.
 */
int fleet_read(const struct check_ctx *ctx, const struct report *rep,
	       const struct node_summary *sum, const char *name, const char *input,
	       struct fleet_reading *out);
void fleet_reading_release(struct fleet_reading *r);
/*
 * A facts document (gdrcheck.facts/1, /2) analysed as 'check --facts' does
 * and read: fleet_read() of it. On failure one line naming @input in @err;
 * -ENOMEM, or the import's or analysis' error.
 */
int fleet_analyse_doc(const char *buf, size_t len, const char *input, const char *name,
		      struct fleet_reading *out, char *err, size_t errsz);
/*
 * An endpoint's subnet as text: "10.10.1.0/24" (RoCE, IPv4), "ib
 * fe80:0000:0000:0000" (InfiniBand's subnet prefix); false when it has none.
 */
bool fleet_end_subnet(int family, const uint8_t *addr, int prefix, bool ib, uint64_t ib_prefix,
		      char *buf, size_t size);

/* -------------------------------------------------------------- a fleet */

struct fleet;

struct fleet *fleet_new(void);
void fleet_free(struct fleet *fl);
/*
 * Keep @r (its strings move into the fleet: @r is released either way).
 * A second reading of a node of the same name is refused: -EEXIST.
 */
int fleet_add(struct fleet *fl, struct fleet_reading *r);
/* A node that could not be read: its name (or input) and why. */
int fleet_add_failed(struct fleet *fl, const char *name, const char *why);

/* ----------------------------------------------------------- the result */

/* An interned string of the fleet; NULL for id 0. */
const char *fleet_str(const struct fleet *fl, uint32_t id);

struct fleet_end_rec {
	uint32_t nic, netdev, gid_type, pair_qos;
	uint8_t port, ib, nccl, family;
	int8_t prefix;
	uint8_t addr[16];
	int16_t gid_index;
	int64_t lid, mtu;
	uint64_t ib_prefix;
};

struct fleet_rail_rec {
	uint32_t nic, gpu_bdf;
	uint8_t port;
	int16_t gpu, gid_index;
};

struct fleet_node {
	uint32_t name, input, kind, blocker, resource, network;
	uint32_t n_gpus, n_blockers;
	uint8_t gate[3];
	bool peer, host_network;
	uint32_t value[FLEET_N_KEYS];
	uint8_t status[FLEET_N_KEYS];
	uint32_t fix[FLEET_N_KEYS];
	uint32_t fix_check[FLEET_N_KEYS];
	struct fleet_end_rec *ends;
	uint16_t n_ends, n_rails;
	struct fleet_rail_rec *rails;
};

struct fleet_failed {
	uint32_t name, why;
};

/* One value of a key among the nodes of a kind, and who has it. */
struct fleet_group {
	uint32_t value;
	size_t *nodes; /* fleet node indices, by name */
	size_t n;
	/* The worst status of the key's checks among them, and one fix. */
	enum check_status status;
	uint32_t fix;
	uint32_t fix_check;
	size_t fix_node; /* whose fix it is */
};

/* How a drift is settled. */
enum fleet_drift_fix {
	FLEET_FIX_NODE = 0, /* the odd nodes' own checks judge it: their fix */
	FLEET_FIX_MAJORITY, /* the majority's own checks judge it: fix those */
	FLEET_FIX_ALIGN, /* no check judges it: align with the majority */
	FLEET_FIX_CHOOSE, /* no majority: which one is right is yours */
};

/* Nodes of one kind that disagree on one key. */
struct fleet_drift {
	enum fleet_key key;
	uint32_t kind; /* 0: the GPU-less peers */
	size_t n_known; /* nodes of the kind whose value is known */
	struct fleet_group *groups; /* by size, then value; groups[0] the majority when @majority */
	size_t n_groups;
	bool majority; /* groups[0] holds more than half of @n_known */
	enum fleet_drift_fix *fix; /* per group (groups[0] too when no majority) */
};

enum fleet_link_kind {
	FLEET_LINK_ISLAND = 0, /* no other node has an address in its subnet */
	FLEET_LINK_NO_PEER, /* no NIC in any subnet of a storage peer */
	FLEET_LINK_MTU, /* its MTU differs from the others' in a subnet */
	FLEET_LINK_QOS, /* its DSCP map / PFC / trust differs from the others' */
	FLEET_LINK_DUP_ADDR, /* the same address on two nodes */
};

/* A problem between nodes, for one node (and the subnets it concerns). */
struct fleet_link {
	enum fleet_link_kind kind;
	enum check_status status;
	size_t node;
	size_t other; /* DUP_ADDR, NO_PEER: the other node; else SIZE_MAX */
	uint32_t nic; /* the node's NIC */
	uint32_t subnet; /* "10.10.9.0/24" */
	uint32_t value; /* MTU / QoS of the node's port */
	uint32_t majority; /* the subnet's majority value; 0 none */
	size_t n_others; /* nodes it is compared with */
	int64_t path_mtu; /* MTU: the RoCE MTU between it and the others */
};

/* A subnet and the endpoints in it. */
struct fleet_subnet {
	uint32_t name; /* "10.10.1.0/24", "ib fe80:0000:0000:0000" */
	size_t n_nodes, n_gpu_nodes, n_peers;
};

enum fleet_phase {
	FLEET_PHASE_HOST = 0, /* seed Phase 6: host-to-host RoCE, host memory both sides */
	FLEET_PHASE_GPU, /* seed Phase 17/19: GPU memory over the same paths */
};

/* One bw test: a server node and a client node, one NIC each. */
struct fleet_step {
	enum fleet_phase phase;
	bool peer; /* against a storage peer (ring otherwise) */
	size_t server, client; /* node indices */
	uint32_t server_nic, client_nic;
	int server_gpu, client_gpu; /* GPU index, -1 host memory */
	uint32_t server_bdf, client_bdf;
};

struct fleet_result {
	size_t *order; /* node indices by kind (GPU kinds first), then name */
	struct fleet_drift *drift;
	size_t n_drift;
	struct fleet_link *links;
	size_t n_links;
	struct fleet_subnet *subnets;
	size_t n_subnets;
	struct fleet_step *plan;
	size_t n_plan;
	/*
	 * [node * FLEET_N_KEYS + key]: 1 where the node's value is not its
	 * kind's majority (every value of a key without a majority).
	 */
	uint8_t *odd;
	uint32_t *kinds; /* GPU kinds by name */
	size_t n_kinds;
	size_t n_gpu_nodes, n_peers;
	/* Worst over every node's counted gates: ST_FAIL somewhere is exit 4. */
	enum check_status worst_gate;
	bool warn; /* a warning: a gate, a drift, a link, a node not read */
};

int fleet_finish(struct fleet *fl, struct fleet_result *res);

/*
 * The gdrcheck bw command of one side of a step into @argv (NULL-terminated,
 * at most FLEET_ARGV_MAX entries with the NULL): "gdrcheck bw server --once
 * --buffer host --nic irdma0", "gdrcheck bw client SERVER --gpu BDF --nic
 * irdma2". The strings are static or the fleet's. Returns the count.
 */
#define FLEET_ARGV_MAX 12
size_t fleet_step_argv(const struct fleet *fl, const struct fleet_step *s, bool server,
		       const char **argv);
void fleet_result_release(struct fleet_result *res);

const struct fleet_node *fleet_nodes(const struct fleet *fl, size_t *n);
const struct fleet_failed *fleet_failures(const struct fleet *fl, size_t *n);
/* Whether gate @g (1..3) counts for @n: every gate of a GPU node, gate 2 of a peer. */
bool fleet_gate_counts(const struct fleet_node *n, int g);
/* A short stable hash of a long value ("q-1a2b3c4d"), for a Prometheus label. */
void fleet_short_hash(const char *s, char *buf, size_t size);
