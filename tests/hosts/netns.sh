# Sourced by the multi-host tests: "hosts" on one machine. A host is a
# network namespace joined to the others by a veth pair through a bridge in
# a switch namespace, with a link-local address that exists only inside the
# namespaces the test creates, plus an IPC, mount and PID namespace of its
# own (a private /dev/shm and /proc), held by one process per host that the
# PEs of that host join. Everything is removed on exit.
#
#   hosts_up N         creates hosts 0..N-1 (host i: 169.254.77.(10+i)); returns 77 with a
#                      message when namespaces cannot be created here
#   host_addr I        prints host I's address
#   on_host I CMD...   runs CMD on host I
#   in_net I CMD...    runs CMD in host I's network namespace only (a launcher that must see
#                      the machine's processes, to start PEs on the hosts with on_host)
#   hosts_down         removes everything hosts_up made (also run at exit)
#   hosts_export       makes pe_on_host I CMD... (on_host) work in processes this shell starts
#                      that start others in turn (tcrun's PEs, OpenMPI's rsh agent)

TC_NS=tc$$
TC_HOSTS=0
TC_HOLDERS=()  # per host, a process in its namespaces (PID 1 there)
TC_UNSHARE=()

hosts_down() {
  local i
  for pid in "${TC_UNSHARE[@]}"; do  # a holder, even one not yet known, is a child of its unshare
    kill -9 $(cat "/proc/$pid/task/$pid/children" 2>/dev/null) "$pid" 2>/dev/null || true
  done
  for pid in "${TC_HOLDERS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  TC_HOLDERS=()
  TC_UNSHARE=()
  for ((i = 0; i < TC_HOSTS; ++i)); do ip netns del "${TC_NS}h$i" 2>/dev/null || true; done
  ip netns del "${TC_NS}sw" 2>/dev/null || true
  TC_HOSTS=0
}

hosts_up() {
  local n=$1 i pid holder
  if ! ip netns add "${TC_NS}sw" 2>/dev/null || ! unshare --pid --fork --mount-proc true 2>/dev/null; then
    ip netns del "${TC_NS}sw" 2>/dev/null
    echo "netns: cannot create network and PID namespaces here (needs root, ip netns, unshare); skipped" >&2
    return 77
  fi
  trap hosts_down EXIT
  # The network: any step the machine refuses (no bridge or veth support) skips the test.
  {
    ip -n "${TC_NS}sw" link add br0 type bridge &&
      ip -n "${TC_NS}sw" link set br0 up
  } || { echo "netns: cannot make a bridge here; skipped" >&2; return 77; }
  for ((i = 0; i < n; ++i)); do
    {
      ip netns add "${TC_NS}h$i" &&
        TC_HOSTS=$((i + 1)) &&
        ip link add "${TC_NS}a$i" type veth peer name "${TC_NS}b$i" &&
        ip link set "${TC_NS}a$i" netns "${TC_NS}sw" &&
        ip link set "${TC_NS}b$i" netns "${TC_NS}h$i" &&
        ip -n "${TC_NS}sw" link set "${TC_NS}a$i" master br0 up &&
        ip -n "${TC_NS}h$i" link set lo up &&
        ip -n "${TC_NS}h$i" addr add "$(host_addr "$i")/24" dev "${TC_NS}b$i" &&
        ip -n "${TC_NS}h$i" link set "${TC_NS}b$i" up
    } || { echo "netns: cannot make host $i's network (veth) here; skipped" >&2; return 77; }
    # The host's holder: PID 1 of its PID namespace, with its own /dev/shm.
    ip netns exec "${TC_NS}h$i" unshare --ipc --mount --pid --fork --mount-proc \
      sh -c 'mount -t tmpfs tmpfs /dev/shm && exec sleep 100000' &
    pid=$!  # unshare (ip netns exec execs it); its child becomes the holder once it runs sleep
    disown "$pid"
    TC_UNSHARE+=("$pid")
    holder=
    for _ in $(seq 200); do
      holder=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)  # "pid pid ... " (no newline)
      holder=${holder%% *}
      [[ -n $holder && $(tr '\0' ' ' <"/proc/$holder/cmdline" 2>/dev/null) == "sleep 100000 " ]] && break
      holder=
      sleep 0.05
    done
    [[ -n $holder ]] || { echo "netns: host $i did not start" >&2; return 1; }
    TC_HOLDERS+=("$holder")
  done
}

host_addr() { echo "169.254.77.$((10 + $1))"; }

on_host() {
  local i=$1
  shift
  nsenter --target "${TC_HOLDERS[$i]}" --net --ipc --mount --pid -- "$@"
}

in_net() {
  local i=$1
  shift
  ip netns exec "${TC_NS}h$i" "$@"
}

hosts_export() {
  export TC_HOLDERS_LIST="${TC_HOLDERS[*]}"
  export -f pe_on_host
}

pe_on_host() {
  local h=($TC_HOLDERS_LIST)
  nsenter --target "${h[$1]}" --net --ipc --mount --pid -- "${@:2}"
}
