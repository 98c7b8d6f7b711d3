console.log("bridge");
