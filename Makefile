# tilecomm: the README's commands, and the stages they are made of.
#   make demo    install what is missing, build the tools and examples (Release), run a short tour
#                of tilecomm with every result checked (scripts/demo.sh)
#   make test    install what is missing, build (Release), run the quick tier: the tests labelled
#                quick (tests/CMakeLists.txt, "The quick tier"), every area in a few minutes
#   make check   everything, as CI runs it (scripts/check.sh): the whole suite in Release, again
#                under ASan+UBSan, the thread tests under TSan, the fuzz corpora and a short run of
#                every fuzz target; prints each stage's time and the ten slowest tests
#   make bench   compare tilecomm with OpenMPI's OSHMEM on this host (bench/compare), then its
#                collectives with OSHMEM, OpenMPI and MPICH (bench/compare-coll), then its fused
#                operators with the same work unfused, in tilecomm and in OpenMPI (bench/compare-fused), then
#                the Python face with mpi4py and torch's gloo (bench/compare-python)
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=
# ctest's slots, two per CPU: a job of N PEs holds N of them (2N when it has a CPU per PE), and
# tcrun binds no PE (NOTE [tests side by side] in tests/CMakeLists.txt).
CTEST_JOBS ?= $(shell echo $$((2 * $(JOBS))))
CTEST = TILECOMM_BIND=0 ctest --output-on-failure -j $(CTEST_JOBS)
# ccache finds a file compiled in another checkout of the same tree.
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: all deps build demo test check test-release test-asan test-tsan test-fuzz fuzz-long bench install clean

all: build

deps:
	@bash scripts/install-deps.sh check

build:
	@bash scripts/install-deps.sh test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo:
	@bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && $(CTEST) -L quick

check:
	@bash scripts/check.sh

test-release: build
	cd $(BUILD) && $(CTEST)

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite.
# intercept_tls_get_addr=0: LeakSanitizer's bookkeeping of the dynamic TLS of
# libraries loaded by dlopen (UCX's, NOTE [ucx loading]) misreads glibc's
# blocks now and then and its leak scan dies with "Tracer caught signal 11"
# after the program passed; without it the scan skips those blocks only.
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=address,undefined >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(CTEST)

# ThreadSanitizer over the tests where threads of one PE share state:
# SHMEM_THREAD_MULTIPLE, the SDMA engine, kernel blocks.
TSAN_TESTS = test_threads test_sdma test_pto_async test_pto_p2p
test-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=thread >/dev/null
	cmake --build build-tsan -j $(JOBS) --target tcrun $(TSAN_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 $(CTEST) -R '^(test_threads|test_sdma|test_pto_async|test_pto_p2p)(\.sdma)?\.np'

# libFuzzer targets of tests/fuzz (clang, ASan+UBSan), one per parser of bytes
# from outside the process: FUZZ_SECONDS each, as many at once as there are
# CPUs, starting from the committed corpus; new inputs go to build-fuzz/grown,
# crashes to build-fuzz/artifacts (tests/fuzz/run.sh).
# A longer run, e.g. an hour per target:  make fuzz-long FUZZ_LONG_SECONDS=3600
# (then copy what build-fuzz/artifacts holds into tests/fuzz/corpus/<target>/crash-*).
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 3600
test-fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILECOMM_FUZZ=ON \
	  -DTILECOMM_BUILD_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz
	cd build-fuzz && $(CTEST) -R '^fuzz_corpus'
	bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

fuzz-long:
	$(MAKE) test-fuzz FUZZ_SECONDS=$(FUZZ_LONG_SECONDS)

bench: build
	@bash scripts/install-deps.sh bench
	bash bench/compare --build $(BUILD)
	bash bench/compare-coll --build $(BUILD)
	bash bench/compare-fused --build $(BUILD)
	bash bench/compare-python --build $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
