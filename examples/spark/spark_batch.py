#!/usr/bin/env python3
"""Pack a JSON Lines file of fixtures with Apache Spark, and check the result.

Two ways, chosen with --engine:

- ``pipe`` (default): ``RDD.pipe`` streams each partition's lines through one
  ``packer batch`` process per partition. Each executor loads each vocabulary
  once and packs on all its cores.
- ``udf``: a pandas UDF calls ``packer_context.pack`` (the Python package) on
  each line, in the Python workers; bad lines become the same
  ``{"errors":[...]}`` objects ``packer batch`` writes.

Either way the results are collected in input order and compared byte for
byte with ``packer batch`` run once, in one process, over the same file. The
script exits 1 if they differ.

    python examples/spark/spark_batch.py fixtures.jsonl --packer target/release/packer

On a cluster: put the ``packer`` binary on every worker (or ship it with
``spark-submit --files target/release/packer`` and pass ``--packer ./packer``),
or install the ``packer-context`` wheel on every worker for ``--engine udf``;
read the input from shared storage (``hdfs://``, ``s3a://``) and
``--output`` to it as well, and submit with ``spark-submit --master
yarn|k8s://...|spark://...`` instead of the local master used here.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="JSON Lines of fixtures")
    parser.add_argument("--packer", default="target/release/packer", help="the packer binary")
    parser.add_argument("--engine", choices=["pipe", "udf"], default="pipe")
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--format", choices=["json", "summary"], default="summary")
    parser.add_argument("--output", help="also write the results here (a Spark text output folder)")
    return parser.parse_args()


def single_process(args):
    """The reference: `packer batch` over the whole file in one process."""
    started = time.perf_counter()
    with open(args.input, "rb") as source:
        run = subprocess.run(
            [args.packer, "batch", "--format", args.format],
            stdin=source,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    if run.returncode not in (0, 3, 4):
        sys.exit(f"packer batch failed with exit status {run.returncode}")
    return run.stdout, time.perf_counter() - started


def pack_line_with_package(line, output_format):
    """One line, as `packer batch` would write it, with packer_context."""
    import packer_context

    try:
        result = packer_context.pack(line.encode("utf-8"), payload=output_format == "json")
    except packer_context.PackerError as error:
        if error.result is not None:
            result = error.result
        else:
            result = {"errors": error.errors}
            if error.more_errors:
                result["moreErrors"] = error.more_errors
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def failed(line):
    """Whether a result line says the fixture could not be packed."""
    result = json.loads(line)
    return "errors" in result or "error" in result


def main():
    args = parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(args.master)
        .appName("packer-batch")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    packer = os.path.abspath(args.packer)

    started = time.perf_counter()
    lines = spark.sparkContext.textFile(args.input, minPartitions=args.partitions)
    if args.engine == "pipe":
        results = lines.pipe(f"{packer} batch --format {args.format}")
    else:
        import pandas as pd
        from pyspark.sql.functions import pandas_udf

        output_format = args.format

        @pandas_udf("string")
        def pack_lines(batch: pd.Series) -> pd.Series:
            return batch.map(lambda line: pack_line_with_package(line, output_format))

        frame = spark.createDataFrame(lines.map(lambda line: (line,)), "line string")
        results = frame.select(pack_lines("line")).rdd.map(lambda row: row[0])
    if args.output:
        results.saveAsTextFile(args.output)
    collected = results.collect()
    spark_seconds = time.perf_counter() - started
    partitions = lines.getNumPartitions()
    spark.stop()

    spark_bytes = "".join(line + "\n" for line in collected).encode("utf-8")
    reference, reference_seconds = single_process(args)
    same = spark_bytes == reference
    print(
        json.dumps(
            {
                "engine": args.engine,
                "master": args.master,
                "partitions": partitions,
                "lines": len(collected),
                "failedLines": sum(1 for line in collected if failed(line)),
                "sparkSeconds": round(spark_seconds, 2),
                "singleProcessBatchSeconds": round(reference_seconds, 2),
                "identicalToSingleProcessBatch": same,
            }
        )
    )
    if not same:
        reference_lines = reference.decode("utf-8").splitlines()
        for number, (got, want) in enumerate(zip(collected, reference_lines), 1):
            if got != want:
                print(f"first difference at line {number}", file=sys.stderr)
                break
        sys.exit(1)


if __name__ == "__main__":
    main()
