# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY resolver resolver
COPY mafia_site mafia_site
COPY games games
# The client library (client/): the reference bot runs in the image too.
COPY client client
RUN pip install --no-cache-dir . ./client
COPY . .
RUN SECRET_KEY=build-only DEBUG=false python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["sh", "-c", "python -m mafia_site.serve --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY:-$(nproc)}"]
