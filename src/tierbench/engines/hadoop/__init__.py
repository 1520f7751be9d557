"""The hadoop engine: Apache Hadoop 3.4.2's own benchmark jobs (TestDFSIO, TeraGen/TeraSort/TeraValidate)."""

from .engine import HadoopEngine
from .runtime import HADOOP_VERSION, hadoop_lib

__all__ = ["HadoopEngine", "HADOOP_VERSION", "hadoop_lib"]
