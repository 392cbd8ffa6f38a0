# tilecomm: the two commands of the README, and the pieces they are made of.
#   make demo   install what is missing, build (Release), run the 4-PE demo and a short benchmark
#   make test   install what is missing, build, run every test (also under ASan+UBSan, TSan for threads,
#               and each libFuzzer target for a short while)
#   make bench  compare tilecomm with OpenMPI's OSHMEM on this host (bench/compare), then its
#               collectives with OSHMEM, OpenMPI and MPICH (bench/compare-coll), then its fused
#               operators with the same work unfused, in tilecomm and in OpenMPI (bench/compare-fused)
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-release test-asan test-tsan test-fuzz fuzz-long bench install clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/tcrun -n 4 $(BUILD)/tilecomm-demo
	$(BUILD)/tcrun -n 4 $(BUILD)/pto-seed-async-get
	$(BUILD)/tcrun -n 2 $(BUILD)/tilecomm-perf --quick

test: test-release test-asan test-tsan test-fuzz

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j 2

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite.
# intercept_tls_get_addr=0: LeakSanitizer's bookkeeping of the dynamic TLS of
# libraries loaded by dlopen (UCX's, NOTE [ucx loading]) misreads glibc's
# blocks now and then and its leak scan dies with "Tracer caught signal 11"
# after the program passed; without it the scan skips those blocks only.
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=address,undefined >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp ctest --output-on-failure -j 2

# ThreadSanitizer over the tests where threads of one PE share state:
# SHMEM_THREAD_MULTIPLE, the SDMA engine, kernel blocks.
TSAN_TESTS = test_threads test_sdma test_pto_async test_pto_p2p
test-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=thread >/dev/null
	cmake --build build-tsan -j $(JOBS) --target tcrun $(TSAN_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^(test_threads|test_sdma|test_pto_async|test_pto_p2p)(\.sdma)?\.np'

# libFuzzer targets of tests/fuzz (clang, ASan+UBSan), one per parser of bytes
# from outside the process: FUZZ_SECONDS each, starting from the committed
# corpus; new inputs go to build-fuzz/grown, crashes to build-fuzz/artifacts.
# A longer run, e.g. an hour per target:  make fuzz-long FUZZ_LONG_SECONDS=3600
# (then copy what build-fuzz/artifacts holds into tests/fuzz/corpus/<target>/crash-*).
FUZZ_TARGETS = fuzz_server fuzz_client fuzz_uniqueid fuzz_config fuzz_pmi fuzz_ucx_batch
FUZZ_SECONDS ?= 20
FUZZ_LONG_SECONDS ?= 3600
test-fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILECOMM_FUZZ=ON \
	  -DTILECOMM_BUILD_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz
	cd build-fuzz && ctest --output-on-failure -R '^fuzz_corpus'
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/grown/$$t build-fuzz/artifacts && \
	  echo "test-fuzz: $$t for $(FUZZ_SECONDS) s" && \
	  build-fuzz/tests/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=build-fuzz/artifacts/$$t- build-fuzz/grown/$$t tests/fuzz/corpus/$$t \
	    >build-fuzz/grown/$$t.log 2>&1 || { tail -n 40 build-fuzz/grown/$$t.log; exit 1; }; \
	  grep -E '^#[0-9]+.*DONE|number_of_executed_units' build-fuzz/grown/$$t.log | tail -n 2; \
	done

fuzz-long:
	$(MAKE) test-fuzz FUZZ_SECONDS=$(FUZZ_LONG_SECONDS)

bench: build
	@bash scripts/install-deps.sh --bench
	bash bench/compare --build $(BUILD)
	bash bench/compare-coll --build $(BUILD)
	bash bench/compare-fused --build $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
