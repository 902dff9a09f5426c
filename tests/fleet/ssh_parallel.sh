#!/usr/bin/env bash
# GNU parallel over ssh, end to end (docs/lab.md, "GNU parallel over ssh"; issue 15, item 4).
#
# One machine poses as two lab hosts: two throwaway users (p3lab-ssh-a, p3lab-ssh-b) behind an
# sshd of this test's own, on 127.0.0.1 only, on a free high port, with its own host key and
# config in a temp folder. Each user's ~/.ssh/environment sets P3LAB_HOST (host-a, host-b), so
# the two "hosts" record different host names where the binary reads P3LAB_HOST. The test then
# runs docs/lab.md's commands as they are written there: install the bundle with rsync, run
# p3lab on every host with `parallel --slf hosts.txt --nonall`, collect one folder per host with
# rsync, merge, compare the two hosts. It fails (non-zero) if any step does, and on exit stops
# sshd and deletes the users, their homes and the temp folder.
#
# Run as root on Debian 12 (no systemd needed), from the repository root or anywhere:
#   P3LAB=target/debug/p3lab bash tests/fleet/ssh_parallel.sh
# Needs openssh-server openssh-client parallel rsync (scripts/setup.sh with P3LAB_SETUP=test).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
P3LAB=$(realpath "${P3LAB:-$repo/target/debug/p3lab}")
users=(p3lab-ssh-a p3lab-ssh-b)
hosts=(host-a host-b)
marker=.p3lab-ssh-parallel-test   # in each user's home: this test made the user
step_timeout=120                  # seconds, for every step that talks to sshd or runs p3lab

say() { echo "ssh_parallel: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (it creates users and starts sshd)"
[ -x "$P3LAB" ] || die "no p3lab binary at $P3LAB (set P3LAB)"
for c in /usr/sbin/sshd ssh ssh-keygen parallel rsync useradd userdel ss timeout flock perl; do
  command -v "$c" >/dev/null || die "$c is missing (apt-get install openssh-server openssh-client parallel rsync)"
done

# One run at a time (the user names are fixed). The lock goes with the process: nothing to clean.
exec 9<"$0"
flock -n 9 || die "another ssh_parallel.sh is running"

# What a run killed with SIGKILL (no cleanup) left: its sshd, its temp folder (its users are
# handled below, where they would be created).
for pid in $(pgrep -x sshd || true); do
  cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)
  # sshd retitles itself: "sshd: /usr/sbin/sshd -D -e -f FILE [listener] ..."
  if [[ $cmd == *"/usr/sbin/sshd -D -e -f /tmp/p3lab-ssh-parallel."*"/sshd_config"* ]]; then
    say "stopping sshd $pid, left by an earlier run"
    kill "$pid" 2>/dev/null || true
  fi
done
for d in /tmp/p3lab-ssh-parallel.*; do
  [ -d "$d" ] && [ -e "$d/sshd_config" ] && { say "deleting $d, left by an earlier run"; rm -rf "$d"; }
done

tmp=$(mktemp -d /tmp/p3lab-ssh-parallel.XXXXXX)
chmod 755 "$tmp"
sshd_pid=
step_pid=
made_run_sshd=
created=()

cleanup() {
  local rc=$?
  set +e
  if [ -n "$step_pid" ]; then   # interrupted in a step: timeout passes TERM on to its command
    kill "$step_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$step_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [ -n "$sshd_pid" ]; then
    kill "$sshd_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$sshd_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$sshd_pid" 2>/dev/null
  fi
  for u in "${created[@]}"; do
    # Whatever the sessions left running (nothing, unless a step timed out) belongs to the
    # throwaway user, and userdel refuses a user with processes.
    pkill -KILL -u "$u" 2>/dev/null
    for _ in $(seq 50); do pgrep -u "$u" >/dev/null || break; sleep 0.1; done
    userdel -r "$u" 2>/dev/null || userdel -f -r "$u" 2>/dev/null
    id "$u" >/dev/null 2>&1 && { say "could not delete user $u"; rc=1; }
  done
  [ -n "$made_run_sshd" ] && rmdir /run/sshd 2>/dev/null
  rm -rf "$tmp"
  if [ "$rc" -eq 0 ]; then say "ok"; else say "failed (exit $rc)"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Bounded step: its command line is echoed, then run under a timeout; any failure ends the test.
# In the background and waited for, so that a signal runs the cleanup at once.
step() {
  local a line=+
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@%+-]+$ ]]; then line+=" $a"; else line+=" '${a//\'/\'\\\'\'}'"; fi
  done
  echo "$line" >&2
  timeout "$step_timeout" "$@" &
  step_pid=$!
  local rc=0
  wait "$step_pid" || rc=$?
  step_pid=
  [ "$rc" -eq 0 ] || die "step failed (exit $rc): $*"
}

# --- the two "hosts": users with a key login and P3LAB_HOST in ~/.ssh/environment -----------
ssh-keygen -q -t ed25519 -N '' -C p3lab-ssh-parallel-client -f "$tmp/client_key"
ssh-keygen -q -t ed25519 -N '' -C p3lab-ssh-parallel-host -f "$tmp/ssh_host_ed25519_key"
for i in "${!users[@]}"; do
  u=${users[$i]}
  if id "$u" >/dev/null 2>&1; then
    home=$(getent passwd "$u" | cut -d: -f6)
    # Left over by an earlier run of this test that was killed before its cleanup.
    [ -e "$home/$marker" ] || die "user $u exists and was not made by this test; not touching it"
    say "deleting $u, left over by an earlier run"
    pkill -KILL -u "$u" 2>/dev/null || true
    userdel -f -r "$u" 2>/dev/null || true
  fi
  useradd --create-home --shell /bin/bash --comment "p3lab ssh_parallel test" "$u"
  created+=("$u")
  usermod -p '*' "$u"   # no password, but not locked: sshd without PAM refuses locked accounts
  home=$(getent passwd "$u" | cut -d: -f6)
  touch "$home/$marker"
  install -d -m 700 -o "$u" -g "$u" "$home/.ssh"
  install -m 600 -o "$u" -g "$u" "$tmp/client_key.pub" "$home/.ssh/authorized_keys"
  echo "P3LAB_HOST=${hosts[$i]}" > "$home/.ssh/environment"
  chown "$u:$u" "$home/.ssh/environment"
  chmod 600 "$home/.ssh/environment"
done

# --- sshd on 127.0.0.1, a free high port ------------------------------------------------------
# sshd's privilege separation folder: Debian's service makes it; removed at the end if made
# here (a run killed with SIGKILL leaves it: empty, as sshd's service would make it).
if [ ! -d /run/sshd ]; then
  mkdir -m 755 /run/sshd
  made_run_sshd=1
fi
port=
for _ in $(seq 10); do
  p=$((20000 + RANDOM % 40000))
  [ -z "$(ss -Htln "sport = :$p")" ] || continue
  cat > "$tmp/sshd_config" <<EOF
Port $p
ListenAddress 127.0.0.1
HostKey $tmp/ssh_host_ed25519_key
PidFile none
AuthorizedKeysFile .ssh/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin no
AllowUsers ${users[*]}
PermitUserEnvironment P3LAB_HOST
StrictModes yes
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
Subsystem sftp internal-sftp
LogLevel VERBOSE
EOF
  /usr/sbin/sshd -t -f "$tmp/sshd_config" || die "sshd -t rejects $tmp/sshd_config"
  /usr/sbin/sshd -D -e -f "$tmp/sshd_config" 2>>"$tmp/sshd.log" &
  sshd_pid=$!
  for _ in $(seq 50); do   # 5 s at most
    kill -0 "$sshd_pid" 2>/dev/null || break
    [ -n "$(ss -Htln "sport = :$p")" ] && { port=$p; break; }
    sleep 0.1
  done
  [ -n "$port" ] && break
  kill "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null || true; sshd_pid=
done
[ -n "$port" ] || { cat "$tmp/sshd.log" >&2; die "sshd did not start"; }
say "sshd (pid $sshd_pid) on 127.0.0.1:$port"

# --- the client side: a home of its own, an ssh config naming the two hosts -------------------
mkdir -p "$tmp/home" "$tmp/work"
export HOME=$tmp/home   # GNU parallel keeps ~/.parallel; nothing goes to root's real home
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/ssh_host_ed25519_key.pub")" > "$tmp/known_hosts"
{
  for i in "${!users[@]}"; do
    printf 'Host %s\n  User %s\n' "${hosts[$i]}" "${users[$i]}"
  done
  cat <<EOF
Host *
  HostName 127.0.0.1
  Port $port
  IdentityFile $tmp/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $tmp/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 10
  ServerAliveInterval 5
  ServerAliveCountMax 3
EOF
} > "$tmp/ssh_config"
# docs/lab.md's commands run unchanged: GNU parallel and rsync take ssh from these variables
# (on a real lab, ~/.ssh/config does what this file does).
export PARALLEL_SSH="ssh -F $tmp/ssh_config" RSYNC_RSH="ssh -F $tmp/ssh_config"

# The plumbing, before the doc's commands: a key login to each host, and its P3LAB_HOST.
for h in "${hosts[@]}"; do
  # shellcheck disable=SC2016 # expanded on the host
  got=$(timeout 30 ssh -F "$tmp/ssh_config" "$h" 'printf %s "$P3LAB_HOST"' < /dev/null) \
    || { cat "$tmp/sshd.log" >&2; die "ssh $h failed"; }
  [ "$got" = "$h" ] || die "ssh $h: P3LAB_HOST is '$got', want '$h' (~/.ssh/environment)"
done

cd "$tmp/work"
printf '%s\n' "${hosts[@]}" > hosts.txt

# --- the bundle: the binary (it carries p3lab.glsl and the calibration scenarios) and the
# scenarios with their shaders. The smoke scenario (small: one 4096-element buffer, a 64x32
# image) stands in for scenarios/: its shader is found in glsl/ next to scenarios/.
mkdir -p p3lab-bundle/scenarios p3lab-bundle/glsl
cp "$P3LAB" p3lab-bundle/p3lab
cp "$repo/scenarios/smoke.toml" p3lab-bundle/scenarios/
cp -r "$repo/glsl/smoke" p3lab-bundle/glsl/
version=$(p3lab-bundle/p3lab --version)
say "$version"
[[ $version == *"built-in assets"* ]] || die "p3lab --version names no built-in assets: $version"
mkdir -p bin
ln -s ../p3lab-bundle/p3lab bin/p3lab
export PATH=$PWD/bin:$PATH   # `p3lab` below: the same build as on the hosts

# --- docs/lab.md, "GNU parallel over ssh", word for word --------------------------------------
# install: the bundle in ~/p3lab on every host
step parallel --jobs 8 'rsync -a p3lab-bundle/ {}:p3lab/' :::: hosts.txt

# run: p3lab once on every host, into runs/HOST/device-N; exit 3 (some rows failed) still
# leaves a folder worth merging
step parallel --jobs 0 --slf hosts.txt --nonall --tag \
  'cd p3lab && ./p3lab run scenarios/ --out "runs/{host}/{device}" --profile auto -q || [ $? -eq 3 ]'

# collect: every host's runs/ into one tree, fleet-runs/HOST/device-N/
mkdir -p fleet-runs
step parallel --jobs 8 'rsync -a {}:p3lab/runs/ fleet-runs/' :::: hosts.txt

step p3lab merge fleet-runs/*/device-* --out fleet
step p3lab compare fleet --base-host host-a --new-host host-b --out compare

# --- checks ----------------------------------------------------------------------------------
# One CSV column by header name (RFC 4180 quoting), one value a line, header left out.
csv_col() {
  perl -e '
    my ($file, $name) = @ARGV;
    open my $f, "<", $file or die "$file: $!\n";
    my $s = do { local $/; <$f> };
    my (@row, @rows);
    pos($s) = 0;
    while (pos($s) < length $s) {
      $s =~ /\G(?:"((?:[^"]|"")*)"|([^,\r\n]*))(,|\r?\n|\z)/gc or die "$file: bad CSV\n";
      push @row, defined $1 ? $1 =~ s/""/"/gr : $2;
      if ($3 ne ",") { push @rows, [@row]; @row = () }
    }
    my @h = @{shift @rows};
    my ($i) = grep { $h[$_] eq $name } 0 .. $#h;
    defined $i or die "$file: no column $name\n";
    print "$_->[$i]\n" for @rows;
  ' "$1" "$2"
}

for h in "${hosts[@]}"; do
  [ -s "fleet-runs/$h/device-0/results.csv" ] || die "fleet-runs/$h/device-0/results.csv missing or empty"
  [ -s "fleet-runs/$h/device-0/run.json" ] || die "fleet-runs/$h/device-0/run.json missing"
done
for f in results.csv samples.csv metrics.csv runs.json; do
  [ -s "fleet/$f" ] || die "fleet/$f missing or empty"
done
[ -s compare/compare.csv ] || die "compare/compare.csv missing or empty"

run_a=$(csv_col fleet-runs/host-a/device-0/results.csv run_id | sort -u)
run_b=$(csv_col fleet-runs/host-b/device-0/results.csv run_id | sort -u)
if [ "$(wc -l <<<"$run_a")" -ne 1 ] || [ "$(wc -l <<<"$run_b")" -ne 1 ] || [ "$run_a" = "$run_b" ]; then
  die "expected one distinct run_id per host, got '$run_a' and '$run_b'"
fi
rows_a=$(csv_col fleet-runs/host-a/device-0/results.csv run_id | wc -l)
rows_b=$(csv_col fleet-runs/host-b/device-0/results.csv run_id | wc -l)
merged_runs=$(csv_col fleet/results.csv run_id | sort | uniq -c | awk '{print $2 "=" $1}' | sort)
want_runs=$(printf '%s\n' "$run_a=$rows_a" "$run_b=$rows_b" | sort)
[ "$merged_runs" = "$want_runs" ] || die "fleet/results.csv rows per run_id: $merged_runs, want $want_runs"
ok_rows=$(csv_col fleet/results.csv status | grep -c '^ok$' || true)
[ "$ok_rows" -ge 2 ] || die "fleet/results.csv has $ok_rows ok rows"

merged_hosts=$(csv_col fleet/results.csv host | sort -u | paste -sd' ')
[ "$merged_hosts" = "host-a host-b" ] \
  || die "fleet/results.csv host column: '$merged_hosts', want 'host-a host-b' (P3LAB_HOST)"

pairs=$(csv_col compare/compare.csv verdict | wc -l)
[ "$pairs" -ge 1 ] || die "compare/compare.csv has no rows"
say "merged $rows_a + $rows_b rows from hosts '$merged_hosts'; compare.csv: $pairs rows"
