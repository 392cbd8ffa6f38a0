# tilecomm: the two commands of the README, and the pieces they are made of.
#   make demo   install what is missing, build (Release), run the 4-PE demo and a short benchmark
#   make test   install what is missing, build, run every test (also under ASan+UBSan, and TSan for threads)
#   make bench  compare tilecomm with OpenMPI's OSHMEM on this host (bench/compare)
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build demo test test-release test-asan test-tsan bench install clean

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

test: test-release test-asan test-tsan

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j 2

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite.
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=address,undefined >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j 2

# ThreadSanitizer over the tests where threads of one PE share state:
# SHMEM_THREAD_MULTIPLE, the SDMA engine, kernel blocks.
TSAN_TESTS = test_threads test_sdma test_pto_async test_pto_p2p
test-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DTILECOMM_SANITIZE=thread >/dev/null
	cmake --build build-tsan -j $(JOBS) --target tcrun $(TSAN_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^(test_threads|test_sdma|test_pto_async|test_pto_p2p)(\.sdma)?\.np'

bench: build
	@bash scripts/install-deps.sh --bench
	bash bench/compare --build $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan
