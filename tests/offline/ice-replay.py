#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replay the DCB fix commands of every E810 fixture against a model of ice.

usage: ice-replay.py GDRCHECK FIXTURES_DIR

For each fixture with recorded netlink replies and ice ports, the ports'
DCB state comes from `gdrcheck collect` (what IEEE_GET read back), the fix
plan from `gdrcheck check --json`. Every command of the plan that touches
ice's DCB (ethtool fw-lldp-agent, dcb app/pfc/ets, ip link nomaster/master)
runs, in plan order, against IcePort, which accepts and rejects what the
ice driver does (drivers/net/ethernet/intel/ice, cited per rule). The test
fails when ice would refuse a printed command, or when the read-back after
the plan is not the seed's QoS: DSCP 24 -> priority 3 -> TC3 with ETS
bandwidth, PFC on priority 3 only, every port back in its bond.
"""
import json
import os
import re
import subprocess
import sys

DSCP, PRIO = 24, 3
NTC = 8  # E810 func_caps maxtc
STRICT, ETS = 0, 2
DCBX_HOST, DCBX_LLD_MANAGED = 0x01, 0x02


class Refused(Exception):
    pass


class IcePort:
    """One ice PF's DCB as dcbnl reads it back (ice_dcbnl_getets/getpfc)."""

    def __init__(self, name, master, dcb, lldp_on):
        self.name = name
        self.master = master
        self.lld = bool(lldp_on) or bool(dcb.get('dcbx', 0) & DCBX_LLD_MANAGED)
        ets = dcb['ets']
        self.prio_tc = list(ets['prio_tc'])
        self.tsa = list(ets['tc_tsa'])
        self.bw = list(ets['tc_tx_bw'])
        self.pfc_en = dcb['pfc']['pfc_en']
        self.apps = {(a['protocol'], a['priority'])
                     for a in dcb.get('apps', []) if a['selector'] == 5}
        self.dscp_mode = bool(self.apps) and not self.lld

    def sw_default(self):
        """ice_dcb_sw_dflt_cfg: TC0 ETS 100%, the rest strict 0%, every
        priority in TC0, PFC off; VLAN (PCP) QoS mode."""
        self.prio_tc = [0] * NTC
        self.tsa = [ETS] + [STRICT] * (NTC - 1)
        self.bw = [100] + [0] * (NTC - 1)
        self.pfc_en = 0
        self.dscp_mode = False

    def writable(self, what):
        # ice_dcb_nl.c: every dcbnl set refuses a bonded port ("DCB changes
        # not allowed when in a bond", -EINVAL) and the firmware LLDP agent
        # (DCB_CAP_DCBX_LLD_MANAGED, -EINVAL).
        if self.master:
            raise Refused('%s on %s: DCB changes not allowed when in a bond (EINVAL)'
                          % (what, self.name))
        if self.lld:
            raise Refused("%s on %s: firmware LLDP agent active (EINVAL)" % (what, self.name))

    def lldp_off(self):
        # ice_init_pf_dcb, SW LLDP path: VLAN PFC mode and the software
        # default configuration; DSCP entries are gone with it.
        self.lld = False
        self.apps = set()
        self.sw_default()

    def app_add(self, dscp, prio):
        self.writable('dcb app add')
        if (dscp, prio) in self.apps:
            # dcb_ieee_setapp, called first by ice_dcbnl_setapp
            raise Refused('dcb app add on %s: DSCP %d:%d exists (EEXIST)'
                          % (self.name, dscp, prio))
        if any(d == dscp for d, _ in self.apps):
            # ice_dcbnl_setapp: "DSCP value ... already user mapped"
            raise Refused('dcb app add on %s: DSCP %d already mapped (EINVAL)'
                          % (self.name, dscp))
        if prio >= NTC:
            raise Refused('dcb app add on %s: TC %d out of range' % (self.name, prio))
        if not self.dscp_mode:
            # ice_dcbnl_setapp, "Switched QoS to L3 DSCP mode": identity
            # priority->TC map, every TC ETS, TC0 100%.
            self.dscp_mode = True
            self.prio_tc = list(range(NTC))
            self.tsa = [ETS] * NTC
            self.bw = [100] + [0] * (NTC - 1)
        self.apps.add((dscp, prio))

    def app_del(self, dscp, prio):
        self.writable('dcb app del')
        if (dscp, prio) not in self.apps:
            raise Refused('dcb app del on %s: no such entry' % self.name)
        self.apps.discard((dscp, prio))
        if not self.apps:
            # ice_dcbnl_delapp: "Switched QoS to L2 VLAN mode", then
            # ice_dcb_sw_dflt_cfg.
            self.sw_default()

    def pfc_set(self, en):
        self.writable('dcb pfc set')
        self.pfc_en = en  # ice_dcbnl_setpfc

    def ets_set(self, tsa, bw, prio_tc):
        self.writable('dcb ets set')
        # ice_dcbnl_setets: bandwidth and TSA always, the priority map only
        # in VLAN mode ("in DSCP mode up->tc mapping cannot change").
        new_prio = list(self.prio_tc) if self.dscp_mode else list(prio_tc)
        new_bw = list(bw)
        ntc = num_tc(new_prio)
        # ice_dcb_bwchk over the ice_dcb_get_num_tc TCs
        if ntc == 1:
            new_bw[0] = 100
        else:
            total = sum(new_bw[:ntc])
            if total == 0:
                new_bw[0] = 100
            elif total != 100:
                raise Refused('dcb ets set on %s: total bandwidth %d, not 100 (EINVAL)'
                              % (self.name, total))
        self.prio_tc, self.tsa, self.bw = new_prio, list(tsa), new_bw
        if not contiguous(self.prio_tc):
            # ice_pf_dcb_recfg -> ice_dcb_noncontig_cfg: software default
            self.sw_default()


def num_tc(prio_tc):
    """ice_dcb_get_num_tc: TCs contiguous from TC0, else 1."""
    used = 0
    for tc in prio_tc:
        used |= 1 << tc
    n, gap = 0, False
    for i in range(NTC):
        if used & (1 << i):
            if gap:
                return 1
            n += 1
        else:
            gap = True
    return max(n, 1)


def contiguous(prio_tc):
    used = {tc for tc in prio_tc}
    return used == set(range(len(used)))


def apply_map(cur, spec, conv):
    """iproute2 dcb: 'all:V' then 'K:V' over the value read back."""
    out = list(cur)
    for tok in spec:
        k, v = tok.split(':')
        if k == 'all':
            out = [conv(v)] * len(out)
        else:
            out[int(k)] = conv(v)
    return out


def tsa_of(name):
    return {'strict': STRICT, 'ets': ETS, 'cbs': 1}[name]


def dcb_command(ports, words):
    """dcb (app|pfc|ets) VERB dev X ARGS..."""
    obj, verb, dev = words[1], words[2], words[4]
    port = ports.get(dev)
    if port is None:
        return
    args = {}
    key = None
    for w in words[5:]:
        if ':' in w and key:
            args[key].append(w)
        else:
            key = w
            args[key] = []
    if obj == 'app':
        for m in args.get('dscp-prio', []):
            d, p = (int(x) for x in m.split(':'))
            if verb == 'add':
                port.app_add(d, p)
            elif verb == 'del':
                port.app_del(d, p)
            elif verb == 'replace':
                # iproute2 dcb app replace: add the new entry, then delete
                # the ones it replaces; ice refuses the add while the DSCP
                # value is mapped to another priority.
                olds = [a for a in port.apps if a[0] == d and a[1] != p]
                if (d, p) not in port.apps:
                    port.app_add(d, p)
                for old in olds:
                    port.app_del(*old)
    elif obj == 'pfc':
        en = apply_map([(port.pfc_en >> i) & 1 for i in range(NTC)],
                       args.get('prio-pfc', []), lambda v: 1 if v == 'on' else 0)
        port.pfc_set(sum(b << i for i, b in enumerate(en)))
    elif obj == 'ets':
        port.ets_set(apply_map(port.tsa, args.get('tc-tsa', []), tsa_of),
                     apply_map(port.bw, args.get('tc-bw', []), int),
                     apply_map(port.prio_tc, args.get('prio-tc', []), int))


CMD = re.compile(r'(?P<nomaster>ip link set (?P<nd>\S+) nomaster)'
                 r'|(?P<master>ip link set (?P<md>\S+) master (?P<bond>[\w.-]+))'
                 r'|(?P<lldp>ethtool --set-priv-flags (?P<ld>\S+) fw-lldp-agent off)'
                 r'|(?P<dcb>dcb (?:app|pfc|ets) [^,;&)]*)')


def expand(fix):
    """A plan step's text per device: 'for d in A B; do CMD; done' and
    'for each of A B (2): TEXT with <dev>' become one text per device."""
    m = re.match(r'for d in ([^;]+); do (.*); done$', fix)
    if m:
        return [m.group(2).replace('$d', d) for d in m.group(1).split()]
    m = re.match(r'for each of ([^(]+) \(\d+\): (.*)$', fix)
    if m:
        return [m.group(2).replace('<dev>', d) for d in m.group(1).split()]
    return [fix]


class Lag:
    """Intel's ice README, "Link Aggregation and RDMA": the first interface
    added to a bond is the RDMA primary; removing the primary while other
    interfaces stay in breaks RDMA over the bond until every interface is
    removed and added again."""

    def __init__(self, ports, primaries):
        self.ports = ports
        self.primary = dict(primaries)  # bond -> its RDMA primary port
        self.broken = set()

    def members(self, bond):
        return [n for n, p in self.ports.items() if p.master == bond]

    def release(self, name):
        bond = self.ports[name].master
        self.ports[name].master = None
        if bond and self.primary.get(bond) == name and self.members(bond):
            self.broken.add(bond)
        if bond and not self.members(bond):
            self.broken.discard(bond)
            self.primary[bond] = None

    def enslave(self, name, bond):
        if bond not in self.primary or self.primary[bond] is None:
            if not self.members(bond):
                self.primary[bond] = name
        self.ports[name].master = bond


def replay(ports, plan, log, lag=None):
    lag = lag or Lag(ports, {})
    for step in plan:
        for text in expand(step['fix']):
            for m in CMD.finditer(text):
                log.append(m.group(0).strip())
                if m.group('nomaster') and m.group('nd') in ports:
                    lag.release(m.group('nd'))
                elif m.group('master') and m.group('md') in ports:
                    lag.enslave(m.group('md'), m.group('bond'))
                elif m.group('lldp') and m.group('ld') in ports:
                    ports[m.group('ld')].lldp_off()
                elif m.group('dcb'):
                    dcb_command(ports, m.group('dcb').split())


def target_problems(port, bond):
    bad = []
    if port.lld:
        bad.append('firmware LLDP agent still on')
    if not port.dscp_mode:
        bad.append('not in DSCP QoS mode')
    if port.apps != {(DSCP, PRIO)}:
        bad.append('DSCP entries %s, not {%d: %d}' % (sorted(port.apps), DSCP, PRIO))
    if port.pfc_en != 1 << PRIO:
        bad.append('pfc_en 0x%02x, not 0x%02x' % (port.pfc_en, 1 << PRIO))
    tc = port.prio_tc[PRIO]
    if tc != PRIO:
        bad.append('priority %d in TC%d, not TC%d' % (PRIO, tc, PRIO))
    if port.tsa[tc] != ETS or port.bw[tc] == 0:
        bad.append('TC%d tsa %d bw %d%%: no ETS bandwidth' % (tc, port.tsa[tc], port.bw[tc]))
    if tc == port.prio_tc[0]:
        bad.append('priority %d shares TC%d with priority 0' % (PRIO, tc))
    if sum(port.bw) != 100:
        bad.append('bandwidths sum to %d' % sum(port.bw))
    if port.master != bond:
        bad.append('master %s, was %s' % (port.master, bond))
    return bad


def rdma_primaries(facts, bonds):
    """The bond port an RDMA device sits on (its port's netdev)."""
    ndevs = {p.get('ndev_name') for n in facts.get('nics', [])
             for p in n.get('ports', []) if isinstance(p, dict)}
    return {b: n for n, b in bonds.items() if b and n in ndevs}


def ice_ports(facts):
    """The ice links with a DCB answer (netdevs[] of gdrcheck.facts/3)."""
    ports, bonds = {}, {}
    links = [n for n in facts.get('netdevs', []) if isinstance(n.get('link'), dict)]
    by_index = {n['link'].get('ifindex'): n.get('name') for n in links}
    for n in links:
        l, eth = n['link'], n.get('ethtool', {})
        if eth.get('driver') != 'ice' or not isinstance(n.get('dcb'), dict):
            continue
        dcb = n['dcb']
        if not isinstance(dcb.get('ets'), dict) or not isinstance(dcb.get('pfc'), dict):
            continue
        lldp = any(p['name'] == 'fw-lldp-agent' and p['on']
                   for p in eth.get('privflags', []) if isinstance(p, dict))
        master = by_index.get(l.get('master')) if isinstance(l.get('master'), int) else None
        ports[n['name']] = IcePort(n['name'], master, dcb, lldp)
        bonds[n['name']] = master
    return ports, bonds


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return r.stdout


def self_check():
    """The model says what the issue reports on a real E810: the old
    PCP-style fix in DSCP mode leaves TC3 strict with 0% and gives 50% to
    TC1, which carries nothing."""
    dcb = {'dcbx': DCBX_HOST | 0x08, 'pfc': {'pfc_en': 0x08},
           'ets': {'prio_tc': [0] * 8, 'tc_tsa': [ETS] + [STRICT] * 7,
                   'tc_tx_bw': [100] + [0] * 7}, 'apps': []}
    p = IcePort('p', None, dcb, False)
    p.app_add(24, 3)
    assert p.prio_tc == list(range(8)) and p.bw[3] == 0, 'first DSCP entry'
    p.ets_set(apply_map(p.tsa, ['all:strict', '0:ets', '1:ets'], tsa_of),
              apply_map(p.bw, ['all:0', '0:50', '1:50'], int),
              apply_map(p.prio_tc, ['all:0', '3:1'], int))
    assert p.prio_tc[3] == 3 and p.tsa[3] == STRICT and p.bw[3] == 0 and p.bw[1] == 50
    q = IcePort('q', 'bond1', dcb, False)
    try:
        q.pfc_set(0x08)
        raise AssertionError('a bonded port took a DCB change')
    except Refused:
        pass
    try:
        p.ets_set(p.tsa, apply_map(p.bw, ['all:0', '0:60', '3:50'], int), p.prio_tc)
        raise AssertionError('110% accepted')
    except Refused:
        pass
    # DSCP 24 on priority 5: dcb app replace is refused (mapped once); the
    # roce.dscp-map fix for ice (del, add, PFC, ETS) reaches the target.
    ports = {'r': IcePort('r', None, dict(dcb, apps=[{'selector': 5, 'priority': 5,
                                                       'protocol': 24}]), False)}
    try:
        dcb_command(ports, 'dcb app replace dev r dscp-prio 24:3'.split())
        raise AssertionError('replace of a mapped DSCP accepted')
    except Refused:
        pass
    replay(ports, [{'fix': 'dcb app del dev r dscp-prio 24:5 && dcb app add dev r dscp-prio 24:3'
                           ' && dcb pfc set dev r prio-pfc all:off 3:on'
                           ' && dcb ets set dev r tc-tsa all:ets tc-bw all:0 0:50 3:50'}], [])
    assert not target_problems(ports['r'], None), target_problems(ports['r'], None)
    # The earlier per-port cycle (release one port, set, re-add) on the
    # primary breaks RDMA over the bond; the bond procedure does not.
    two = {n: IcePort(n, 'bond1', dcb, False) for n in ('a', 'b')}
    lag = Lag(two, {'bond1': 'a'})
    replay(two, [{'fix': 'ip link set a nomaster, run dcb pfc set dev a prio-pfc all:off 3:on, '
                          '(ip link set a master bond1)'}], [], lag)
    assert 'bond1' in lag.broken and lag.primary['bond1'] == 'a'
    two = {n: IcePort(n, 'bond1', dcb, False) for n in ('a', 'b')}
    lag = Lag(two, {'bond1': 'a'})
    replay(two, [{'fix': 'ip link set b nomaster; ip link set a nomaster; '
                          'ip link set a master bond1; ip link set b master bond1'}], [], lag)
    assert not lag.broken and lag.primary['bond1'] == 'a'


def main():
    gdrcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    self_check()
    failed, seen = 0, 0
    for name in sorted(os.listdir(fixtures)):
        d = os.path.join(fixtures, name)
        if not (os.path.isdir(os.path.join(d, 'netlink')) and os.path.isdir(os.path.join(d, 'root'))):
            continue
        facts = json.loads(run([gdrcheck, 'collect', '--root', 'root',
                                '--netlink-replay', 'netlink'], d) or '{}')
        ports, bonds = ice_ports(facts)
        if not ports:
            continue
        seen += 1
        report = json.loads(run([gdrcheck, 'check', '--json', '--root', 'root',
                                 '--netlink-replay', 'netlink'], d))
        log = []
        want = rdma_primaries(facts, bonds)
        lag = Lag(ports, want)
        try:
            replay(ports, report.get('plan', []), log, lag)
        except Refused as e:
            print('FAIL %s: ice refuses a printed command: %s' % (name, e))
            failed += 1
            continue
        bad = {n: target_problems(p, bonds[n]) for n, p in ports.items()}
        for b, prim in want.items():
            if b in lag.broken:
                bad.setdefault(b, []).append('RDMA primary %s left while other ports stayed in' % prim)
            elif lag.primary.get(b) != prim:
                bad.setdefault(b, []).append('RDMA primary is %s, was %s' % (lag.primary.get(b), prim))
        bad = {n: b for n, b in bad.items() if b}
        if bad:
            failed += 1
            print('FAIL %s: after %d commands the read-back is not the seed\'s QoS:' % (name, len(log)))
            for n, b in sorted(bad.items()):
                print('  %s: %s' % (n, '; '.join(b)))
            for c in log:
                print('    ran: %s' % c)
        else:
            print('ok   %s (%d ice ports, %d commands)' % (name, len(ports), len(log)))
    if seen == 0:
        print('FAIL: no E810 fixture with netlink replies found')
        return 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
