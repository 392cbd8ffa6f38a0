#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: tests/fuzz/corpus/<target>/<name>.

Small valid inputs and edge cases, one file each; run it again after a wire
or config change (it rewrites the seeds it knows and leaves crash reproducers,
which are named crash-*, alone). See README.md."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
COOKIE = b"tilecomm-fuzz-ck"  # kCookie of fuzz_server.cpp
HELLO, WELCOME, REJECT, ALLGATHER, RESULT, FINALIZE, ABORT, GLOBAL_EXIT, PUBLISH, LOOKUP, LOOKUP_RESULT = range(1, 12)


def msg(t, body=b""):
    return struct.pack("<II", t, len(body)) + body


def hello(rank, size, cookie=COOKIE, pid=100):
    return msg(HELLO, cookie + struct.pack("<iii", rank, size, pid + rank) + b"host".ljust(64, b"\0"))


def gather(key=b"", blob=b"", listed=1):
    """An Allgather body (NOTE [keyed gathers])."""
    return struct.pack("<II", len(key), listed) + key + blob


def group(pes, first_other=-1, blobs=b"", listed=True, runs=None):
    """An AllgatherResult body: the group's size, first PE outside it, what the round asked
    for and its blob size, then its PEs and blobs, then the map's runs (start, group)."""
    want = (1 if listed else 0) | (2 if runs is not None else 0)
    out = struct.pack("<iiII", len(pes), first_other, want, len(blobs) // len(pes))
    out += struct.pack("<%di" % len(pes), *pes) + blobs if listed else b""
    if runs is not None:
        out += struct.pack("<i", len(runs)) + b"".join(struct.pack("<ii", *r) for r in runs)
    return out


def rec(op, data=b""):
    """A fuzz_server record: op, then data (at most 255 bytes per record)."""
    out = b""
    while True:
        out += bytes([op, min(len(data), 255)]) + data[:255]
        data = data[255:]
        if not data:
            return out


def server_seeds():
    blob = gather(b"", struct.pack("<i", 7))
    two = rec(0, hello(0, 2)) + rec(1, hello(1, 2))
    three = rec(0, hello(0, 3)) + rec(1, hello(1, 3)) + rec(2, hello(2, 3))
    return {
        "job2_allgather_finalize": bytes([2]) + two + rec(0, msg(ALLGATHER, blob)) + rec(1, msg(ALLGATHER, blob))
        + rec(0, msg(FINALIZE)) + rec(1, msg(FINALIZE)),
        "job2_pe_closes": bytes([2]) + two + rec(4, b"") + rec(1, msg(ALLGATHER, blob)),
        "job2_two_allgathers": bytes([2]) + two + rec(0, msg(ALLGATHER, blob) + msg(ALLGATHER, blob))
        + rec(1, msg(ALLGATHER, blob)) + rec(2, hello(0, 2)),
        "job3_keyed_groups": bytes([3]) + three + rec(0, msg(ALLGATHER, gather(b"host a", b"0000")))
        + rec(1, msg(ALLGATHER, gather(b"host b", b"1111"))) + rec(2, msg(ALLGATHER, gather(b"host a", b"2222"))),
        "job3_hosts_mapped": bytes([3]) + three + rec(0, msg(ALLGATHER, gather(b"host a", b"0000", listed=3)))
        + rec(1, msg(ALLGATHER, gather(b"host b", b"1111", listed=3))) + rec(2, msg(ALLGATHER, gather(b"host a", b"2222", listed=3))),
        "job3_agreement": bytes([3]) + three + rec(0, msg(ALLGATHER, gather(b"same", listed=0)))
        + rec(1, msg(ALLGATHER, gather(b"other", listed=0))) + rec(2, msg(ALLGATHER, gather(b"same", listed=0))),
        "job2_list_disagrees": bytes([2]) + two + rec(0, msg(ALLGATHER, gather(listed=1)))
        + rec(1, msg(ALLGATHER, gather(listed=0))),
        "job2_key_too_long": bytes([2]) + two + rec(0, msg(ALLGATHER, gather(b"k" * 257))),
        "job2_key_past_the_end": bytes([2]) + two + rec(0, msg(ALLGATHER, struct.pack("<II", 9, 1) + b"abc")),
        "job2_publish_lookup": bytes([2]) + two + rec(0, msg(PUBLISH, b"card-of-pe-0"))
        + rec(1, msg(LOOKUP, struct.pack("<i", 0)) + msg(LOOKUP, struct.pack("<i", 1))),
        "job2_lookup_out_of_range": bytes([2]) + two + rec(1, msg(LOOKUP, struct.pack("<i", 2))),
        "job2_publish_twice": bytes([2]) + two + rec(0, msg(PUBLISH, b"a") + msg(PUBLISH, b"b")),
        "job2_duplicate_finalize": bytes([2]) + two + rec(0, msg(FINALIZE) + msg(FINALIZE)),
        "job2_global_exit": bytes([2]) + two + rec(1, msg(GLOBAL_EXIT, struct.pack("<i", 3))) + rec(4, bytes([0])),
        "job_size_from_hello": bytes([0]) + rec(0, hello(0, 3)) + rec(6, b"") + rec(1, hello(1, 2)),
        "wrong_size": bytes([2]) + rec(0, hello(0, 1)) + rec(1, hello(1, 2)),
        "huge_size": bytes([0]) + rec(0, hello(0, 0x7FFFFFFF)),
        "wrong_cookie": bytes([1]) + rec(0, hello(0, 1, cookie=b"x" * 16)),
        "not_hello": bytes([1]) + rec(0, msg(ALLGATHER, blob)),
        "huge_blob_header": bytes([2]) + two + rec(0, struct.pack("<II", ALLGATHER, 40 << 20)),
        "split_hello": bytes([1]) + rec(0, hello(0, 1)[:30]) + rec(0, hello(0, 1)[30:]) + rec(0, msg(FINALIZE)),
        "expire_and_abort": bytes([3]) + rec(0, hello(0, 3)) + rec(5) + rec(7) + rec(1, hello(1, 3)),
        "http_request": bytes([1]) + rec(0, b"GET / HTTP/1.0\r\n\r\n"),
    }


def client_seeds():
    def shape(blob, listed, size, mapped=False):
        """The gather the client made: blob size, list and map flags, job size."""
        return struct.pack("<HB", blob | (0x4000 if listed else 0) | (0x8000 if mapped else 0), size)

    none = shape(0, False, 1)
    return {
        "welcome": none + msg(WELCOME),
        "reject": none + msg(REJECT, b"PE 0 joined twice (pids 1 and 2)"),
        "result": shape(4, True, 2) + msg(RESULT, group([0, 1], -1, bytes(range(8)))),
        "result_of_a_group": shape(2, True, 4) + msg(RESULT, group([1, 3], 0, b"abcd")),
        "result_unlisted": shape(0, False, 3) + msg(RESULT, group([0, 2], 1, listed=False)),
        "result_mapped": shape(2, True, 4, True) + msg(RESULT, group([1, 3], 0, b"abcd", runs=[(0, 0), (1, 1), (2, 0), (3, 1)])),
        "result_map_out_of_order": shape(0, False, 4, True)
        + msg(RESULT, group([0, 1], 2, listed=False, runs=[(0, 0), (2, 2), (1, 0)])),
        "result_pes_not_ascending": shape(4, True, 2) + msg(RESULT, group([1, 0], -1, bytes(8))),
        "result_group_too_large": shape(0, False, 2) + msg(RESULT, group([0, 1, 2], -1, listed=False)),
        "result_wrong_length": shape(8, True, 1) + msg(RESULT, bytes(3)),
        "abort": none + msg(ABORT, b"PE 1 (pid 5 on h) left the job without shmem_finalize"),
        "global_exit": none + msg(GLOBAL_EXIT, struct.pack("<ii", 7, 1)),
        "global_exit_short": none + msg(GLOBAL_EXIT, struct.pack("<i", 7)),
        "lookup_result": none + msg(LOOKUP_RESULT, struct.pack("<i", 3) + b"card"),
        "lookup_result_short": none + msg(LOOKUP_RESULT, b"ab"),
        "unknown_type": none + msg(99, b"x"),
        "huge_header": none + struct.pack("<II", RESULT, 0xFFFFFFFF),
        "truncated": shape(4, True, 1) + msg(RESULT, group([0], -1, bytes(4)))[:13],
        "abort_with_nul": none + msg(ABORT, b"a\0b"),
        "welcome_then_result": shape(4, True, 1) + msg(WELCOME) + msg(RESULT, group([0], -1, bytes(4))),
    }


def uniqueid_seeds():
    good = b"tcp://127.0.0.1:4555/00112233445566778899aabbccddeeff"
    return {
        "valid": good,
        "valid_max_port": b"tcp://10.1.2.3:65535/ffffffffffffffffffffffffffffffff",
        "port_zero": b"tcp://127.0.0.1:0/00112233445566778899aabbccddeeff",
        "port_leading_zero": b"tcp://127.0.0.1:04555/00112233445566778899aabbccddeeff",
        "port_space": b"tcp://127.0.0.1: 4555/00112233445566778899aabbccddeeff",
        "port_too_big": b"tcp://127.0.0.1:70000/00112233445566778899aabbccddeeff",
        "bad_ip": b"tcp://300.0.0.1:5/00112233445566778899aabbccddeeff",
        "upper_hex": b"tcp://127.0.0.1:5/00112233445566778899AABBCCDDEEFF",
        "short_cookie": b"tcp://127.0.0.1:5/0011",
        "nul_in_ip": b"tcp://127.0.0.1\0:5/00112233445566778899aabbccddeeff",
        "binary_128": good + b"\0" * (128 - len(good)),
        "no_nul_128": b"a" * 128,
        "empty": b"",
    }


def pmi_seeds():
    # The PE (first byte), then the launcher's answers in order.
    init = (b"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
            b"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"
            b"cmd=my_kvsname kvsname=kvs_77_0\n")
    get = b"cmd=barrier_out\ncmd=get_result rc=0 msg=success value=tcp://127.0.0.1:4000/00ff\n"
    return {
        "pe0": b"\0" + init + b"cmd=put_result rc=0 msg=success\n" + get + b"cmd=finalize_ack\n",
        "pe1": b"\1" + init + get + b"cmd=finalize_ack\n",
        "init_refused": b"\1cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n",
        "wrong_answer": b"\1cmd=barrier_out\n",
        "no_value": b"\1" + init + b"cmd=barrier_out\ncmd=get_result rc=0\n",
        "small_vallen": b"\0" + init.replace(b"vallen_max=1024", b"vallen_max=8"),
        "truncated": b"\1" + init[:40],
        "no_newline": b"\1cmd=response_to_init rc=0",
        "empty_words": b"\1cmd=response_to_init  rc=0 = ==x\n" + init[58:],
    }


def config_seeds():
    # A line's first byte picks the variable by its index in config_table.def.
    def line(var, value):
        return bytes([var]) + value + b"\n"

    return {
        "size_suffixes": line(0, b"512M") + line(17, b"1.5GB"),
        "size_plain": b"4096",
        "size_fraction": b"1.5K",
        "size_too_big": b"17179869184T",
        "size_bad_suffix": b"12Q",
        "size_dot": b".",
        "booleans": line(1, b"yes") + line(2, b"off") + line(8, b"TRUE"),
        "bad_boolean": line(1, b"maybe"),
        "level": line(3, b"debug"),
        "bad_level": line(3, b"loud"),
        "seconds": line(4, b"2.5") + line(11, b"1e3"),
        "bad_seconds": line(4, b"inf") + line(12, b" 5"),
        "uint": line(5, b"2000") + line(15, b"3"),
        "uint_negative": line(5, b" -5"),
        "uint_overflow": line(5, b"99999999999999999999999"),
        "strings": line(9, b"127.0.0.1") + line(19, b"sdma,mte"),
        "empty_values": line(0, b"") + line(5, b""),
    }


def ucx_batch_seeds():
    """fuzz_ucx_batch: the job's size, then a batch (ucx_batch in ucx_transport.hpp): a head
    (sender, magic), then per put its address, its length and its bytes padded to 8."""
    magic = 0x7C0A1E5C

    def put(addr, data):
        return struct.pack("<QQ", addr, len(data)) + data + b"\0" * (-len(data) % 8)

    def batch(pe, *puts, size=4):
        return bytes([size]) + struct.pack("<iI", pe, magic) + b"".join(puts)

    return {
        "empty": batch(0),
        "one_word": batch(1, put(0x10000, b"\x2a" * 8)),
        "mixed": batch(3, put(0x10010, b"abc"), put(0x10ff0, b"x"), put(0x10800, bytes(range(200)))),
        "whole_region": batch(2, put(0x10000, b"\x11" * 4096)),
        "last_byte": batch(2, put(0x10fff, b"z")),
        "past_region": batch(2, put(0x10ffe, b"abc")),
        "zero_bytes": batch(1, struct.pack("<QQ", 0x10000, 0)),
        "truncated": batch(1, put(0x10000, b"abcdefgh"))[:-3],
        "bad_magic": bytes([4]) + struct.pack("<iI", 0, magic ^ 1),
        "pe_outside": batch(9, put(0x10000, b"a")),
    }


def main():
    for target, seeds in (("fuzz_server", server_seeds()), ("fuzz_client", client_seeds()),
                          ("fuzz_uniqueid", uniqueid_seeds()), ("fuzz_config", config_seeds()),
                          ("fuzz_pmi", pmi_seeds()), ("fuzz_ucx_batch", ucx_batch_seeds())):
        d = os.path.join(HERE, "corpus", target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{d}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
