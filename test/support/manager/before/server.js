// Manager's server.js before the guide, in our words around the lines the guide names.
const { buildApp } = require('./app');

async function main() {
  const app = buildApp({ sessionSecrets: [process.env.SESSION_SECRET] });

  const PORT = 3000;
  app.listen(PORT, () => console.log(`Server running on http://localhost:${PORT}`));
}

main();
