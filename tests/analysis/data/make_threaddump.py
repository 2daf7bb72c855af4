"""Re-make threaddump-contended.txt: a real `jstack` of Contended.java, whose 8 threads call one
synchronized singleton (the shape of the singleton SOAP client's monitor contention).

    .venv/bin/python tests/analysis/data/make_threaddump.py     # needs javac, java and jstack

Compiles into a temporary folder, starts the program, waits 3 s, captures `jstack <pid>`.
"""
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-d", tmp, str(HERE / "Contended.java")], check=True)
        proc = subprocess.Popen(["java", "-Xmx32m", "-XX:+UseSerialGC", "-cp", tmp, "Contended", "8000"])
        try:
            time.sleep(3)
            dump = subprocess.run(["jstack", str(proc.pid)], check=True, capture_output=True, text=True).stdout
        finally:
            proc.kill()
            proc.wait()
    (HERE / "threaddump-contended.txt").write_text(dump)
    print(f"wrote {HERE / 'threaddump-contended.txt'}: {dump.count('BLOCKED (on object monitor)')} BLOCKED")


if __name__ == "__main__":
    main()
