#!/usr/bin/env bash
# Two PEs in two network namespaces joined by a veth pair, so fabric traffic really crosses an
# interface. The PEs find each other with the unique-id bootstrap on the veth addresses; being in
# different namespaces they are different nodes to gshmem and talk only through libfabric.
# Usage: netns_test.sh PROGRAM [provider]. Exits 77 (skipped) when namespaces cannot be made.
set -u
prog=$1
provider=${2:-tcp;ofi_rxm}
tag=$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))
ns_a=gshmem-$tag-a ns_b=gshmem-$tag-b
if_a=gsh${tag}a if_b=gsh${tag}b
subnet=10.199.$(( RANDOM % 250 )).$(( (RANDOM % 60) * 4 ))
addr_a=${subnet%.*}.$(( ${subnet##*.} + 1 ))
addr_b=${subnet%.*}.$(( ${subnet##*.} + 2 ))
port=$(( 20000 + RANDOM % 20000 ))

cleanup() {
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null
}
trap cleanup EXIT

if ! command -v ip >/dev/null || ! ip netns add "$ns_a" 2>/dev/null; then
  echo "SKIPPED: cannot create network namespaces here (needs iproute2 and CAP_NET_ADMIN)"
  exit 77
fi
set -e
ip netns add "$ns_b"
ip link add "$if_a" type veth peer name "$if_b"
ip link set "$if_a" netns "$ns_a"
ip link set "$if_b" netns "$ns_b"
ip -n "$ns_a" addr add "$addr_a/30" dev "$if_a"
ip -n "$ns_b" addr add "$addr_b/30" dev "$if_b"
for ns in "$ns_a" "$ns_b"; do ip -n "$ns" link set lo up; done
ip -n "$ns_a" link set "$if_a" up
ip -n "$ns_b" link set "$if_b" up
set +e

tx_bytes() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }
before=$(tx_bytes "$ns_a" "$if_a")

run_pe() {  # ns rank ifname
  ip netns exec "$1" env GSHMEM_BOOTSTRAP=uid GSHMEM_BOOTSTRAP_UID_ADDR="$addr_a:$port" \
    GSHMEM_RANK="$2" GSHMEM_NRANKS=2 GSHMEM_FABRIC_PROVIDER="$provider" GSHMEM_FABRIC_NIC="$3" \
    GSHMEM_TIMEOUT=60 timeout 120 "$prog"
}
run_pe "$ns_a" 0 "$if_a" > "/tmp/gshmem-netns-$tag-0.log" 2>&1 &
pe0=$!
run_pe "$ns_b" 1 "$if_b" > "/tmp/gshmem-netns-$tag-1.log" 2>&1 &
pe1=$!
wait $pe0; rc0=$?
wait $pe1; rc1=$?
after=$(tx_bytes "$ns_a" "$if_a")
for r in 0 1; do sed "s/^/[PE $r] /" "/tmp/gshmem-netns-$tag-$r.log"; rm -f "/tmp/gshmem-netns-$tag-$r.log"; done
echo "veth $if_a carried $(( after - before )) bytes out of namespace $ns_a ($addr_a -> $addr_b)"
if [ $rc0 -ne 0 ] || [ $rc1 -ne 0 ]; then
  echo "FAILED: PE exit statuses $rc0 and $rc1"
  exit 1
fi
if [ $(( after - before )) -lt 100000 ]; then
  echo "FAILED: too little traffic crossed the veth pair"
  exit 1
fi
echo "PASSED"
