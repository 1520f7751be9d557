"""The hadoop engine: Apache Hadoop 3.4.2's own benchmark jobs (TestDFSIO, TeraGen/TeraSort/TeraValidate)."""

from ...toolchain import HADOOP_VERSION
from .engine import HadoopEngine

__all__ = ["HadoopEngine", "HADOOP_VERSION"]
