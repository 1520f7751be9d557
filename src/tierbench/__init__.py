"""tierbench: which storage should your Spark/Hadoop cluster run on, and what does each choice cost per job?"""

__version__ = "0.1.0"
