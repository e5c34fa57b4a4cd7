# A FIFO named result.json: nobody writes to it, reading it would hang.
mkfifo result.json
